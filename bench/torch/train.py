"""train.py - train one model for a number of steps on one allocator.

    python3 train.py --allocator native|hipcore --model gpt2|bert|resnet|vit
                     [--steps 50] [--out FILE]

Deterministic (torch.use_deterministic_algorithms, a fixed seed, the same
inputs every step), so two allocators must give bit-identical losses.
Prints one JSON line: every step's loss as a hex float, every step's time
(synchronised wall time, ms) and the allocator's memory figures.
"""
import argparse
import time

import common


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allocator", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--out")
    a = ap.parse_args()
    torch = common.setup(a.allocator)
    import models

    model, x, y, loss_fn = models.build(a.model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    losses, times = [], []
    for _ in range(a.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(float(loss.item()).hex())
    rec = {"kind": "train", "model": a.model, "allocator": a.allocator, "steps": a.steps,
           "losses": losses, "step_ms": times, "device": torch.cuda.get_device_name(0)}
    rec.update(common.memory(a.allocator))
    common.emit(rec, a.out)


if __name__ == "__main__":
    main()
