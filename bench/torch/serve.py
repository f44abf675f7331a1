"""serve.py - a 4-stream inference server: 4 threads, each with its own
torch.cuda.Stream, serve 64 requests of varied lengths with a
GPT-2-medium-sized model (24 layers, 1024 wide, 16 heads) in fp16.

    python3 serve.py --allocator native|hipcore [--threads 4] [--requests 64] [--out FILE]

Requests are taken from a shared queue in order; each one runs the model
under torch.no_grad() on its thread's stream and waits for it.  Prints one
JSON line: the memory figures, the wall time, and a checksum of every
request's logits (hex floats, by request index), which two allocators must
reproduce exactly.
"""
import argparse
import queue
import threading
import time

import common


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allocator", required=True)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--out")
    a = ap.parse_args()
    torch = common.setup(a.allocator)
    import models

    torch.manual_seed(0)
    model = models.TokenModel(50257, 1024, 1024, 24, 16, causal=True).half().cuda().eval()
    gen = torch.Generator().manual_seed(2)
    lengths = torch.randint(16, 1024, (a.requests,), generator=gen).tolist()
    batches = torch.randint(1, 9, (a.requests,), generator=gen).tolist()
    work = queue.Queue()
    for i in range(a.requests):
        work.put(i)
    sums = [None] * a.requests
    errors = []
    torch.cuda.synchronize()

    def worker():
        stream = torch.cuda.Stream()
        try:
            with torch.no_grad(), torch.cuda.stream(stream):
                while True:
                    try:
                        i = work.get_nowait()
                    except queue.Empty:
                        return
                    g = torch.Generator().manual_seed(100 + i)
                    idx = torch.randint(0, 50257, (batches[i], lengths[i]), generator=g)
                    out = model(idx.cuda(non_blocking=False))
                    sums[i] = float(out.float().sum().item()).hex()
                    del out, idx
        except Exception as e:  # reported, not swallowed
            errors.append(repr(e))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(a.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    torch.cuda.synchronize()
    rec = {"kind": "serve", "allocator": a.allocator, "threads": a.threads,
           "requests": a.requests, "wall_s": time.perf_counter() - t0, "checksums": sums,
           "errors": errors, "device": torch.cuda.get_device_name(0)}
    rec.update(common.memory(a.allocator))
    common.emit(rec, a.out)


if __name__ == "__main__":
    main()
