#!/usr/bin/env python3
"""Record PyTorch caching-allocator histories on a CUDA device as RMM CSV.

For each model family (random weights, nothing downloaded) run a few
training or inference steps with the allocator's memory history on, then
write the history as RMM's memory-event CSV (Thread,Time,Action,Pointer,
Size,Stream): `allocate` on each alloc, `free` on each free_requested.
Beside each trace, PyTorch's own peak reserved and peak allocated bytes go
into corpus.tsv.  Usage: record_torch.py OUTDIR [name ...]
"""
import gzip
import os
import sys
import time

import torch
import torch.nn as nn


def record_start():
    try:
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python",
                                                 max_entries=2_000_000)
    except TypeError:
        torch.cuda.memory._record_memory_history(True, trace_alloc_max_entries=2_000_000)


def record_stop():
    try:
        torch.cuda.memory._record_memory_history(enabled=None)
    except TypeError:
        torch.cuda.memory._record_memory_history(False)


def write_csv(path, snapshot):
    rows = 0
    base = None
    with gzip.open(path, "wt") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n")
        for trace in snapshot["device_traces"]:
            for e in trace:
                act = e["action"]
                if act == "alloc":
                    a = "allocate"
                elif act == "free_requested":
                    a = "free"
                else:
                    continue
                t = e.get("time_us", rows)
                if base is None:
                    base = t
                f.write("0,%d,%s,0x%x,%d,%d\n" % ((t - base) * 1000, a, e["addr"], e["size"],
                                                  e.get("stream", 0)))
                rows += 1
    return rows


def train(model, make_batch, steps, lr=1e-3):
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(steps):
        x, y = make_batch()
        loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()


class Loss(nn.Module):
    def __init__(self, net, kind="ce"):
        super().__init__()
        self.net, self.kind = net, kind

    def forward(self, x, y=None):
        out = self.net(x)
        if hasattr(out, "last_hidden_state"):
            out = out.last_hidden_state
        if self.kind == "ce":
            return nn.functional.cross_entropy(out, y)
        return (out.float() ** 2).mean()


class TinyUNet(nn.Module):
    def __init__(self, c=64):
        super().__init__()
        def blk(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.GroupNorm(8, o), nn.SiLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.GroupNorm(8, o), nn.SiLU())
        self.d1, self.d2, self.d3 = blk(4, c), blk(c, 2 * c), blk(2 * c, 4 * c)
        self.mid = blk(4 * c, 4 * c)
        self.u3, self.u2, self.u1 = blk(8 * c, 2 * c), blk(4 * c, c), blk(2 * c, c)
        self.out = nn.Conv2d(c, 4, 1)
        self.pool, self.up = nn.AvgPool2d(2), nn.Upsample(scale_factor=2)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(self.pool(a))
        c = self.d3(self.pool(b))
        m = self.mid(self.pool(c))
        c = self.u3(torch.cat([self.up(m), c], 1))
        b = self.u2(torch.cat([self.up(c), b], 1))
        a = self.u1(torch.cat([self.up(b), a], 1))
        return self.out(a)


class Recsys(nn.Module):
    def __init__(self, tables=8, rows=2_000_000, dim=128):
        super().__init__()
        self.emb = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        self.mlp = nn.Sequential(nn.Linear(tables * dim, 1024), nn.ReLU(), nn.Linear(1024, 256),
                                 nn.ReLU(), nn.Linear(256, 2))

    def forward(self, idx):
        return self.mlp(torch.cat([e(i) for e, i in zip(self.emb, idx)], 1))


def models():
    dev = "cuda"
    import timm
    from transformers import BertConfig, BertModel

    def cnn_train():
        m = Loss(timm.create_model("resnet50", pretrained=False, num_classes=1000)).to(dev)
        train(m, lambda: (torch.randn(64, 3, 224, 224, device=dev),
                          torch.randint(0, 1000, (64,), device=dev)), 6)

    def vit_train():
        m = Loss(timm.create_model("vit_base_patch16_224", pretrained=False)).to(dev)
        train(m, lambda: (torch.randn(32, 3, 224, 224, device=dev),
                          torch.randint(0, 1000, (32,), device=dev)), 6)

    def bert_train():
        cfg = BertConfig(num_hidden_layers=12, hidden_size=768, num_attention_heads=12)
        m = Loss(BertModel(cfg), kind="mse").to(dev)
        train(m, lambda: (torch.randint(0, cfg.vocab_size, (16, 512), device=dev), None), 6)

    def unet_train():
        m = Loss(TinyUNet(), kind="mse").to(dev)
        train(m, lambda: (torch.randn(16, 4, 128, 128, device=dev), None), 8)

    def recsys_train():
        net = Recsys().to(dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        for _ in range(8):
            idx = [torch.randint(0, 2_000_000, (4096, 20), device=dev) for _ in range(8)]
            loss = nn.functional.cross_entropy(net(idx), torch.randint(0, 2, (4096,), device=dev))
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    def cnn_infer_streams():
        m = timm.create_model("resnet50", pretrained=False).to(dev).eval()
        streams = [torch.cuda.Stream() for _ in range(4)]
        with torch.no_grad():
            for i in range(32):
                s = streams[i % 4]
                with torch.cuda.stream(s):
                    m(torch.randn(1 + (i * 7) % 32, 3, 224, 224, device=dev))
        torch.cuda.synchronize()

    def bert_infer():
        cfg = BertConfig()
        m = BertModel(cfg).to(dev).eval()
        with torch.no_grad():
            for i in range(24):
                m(torch.randint(0, cfg.vocab_size, (1 + i % 8, 64 * (1 + i % 8)), device=dev))
        torch.cuda.synchronize()

    return {
        "cnn_train": cnn_train, "vit_train": vit_train, "bert_train": bert_train,
        "unet_train": unet_train, "recsys_train": recsys_train,
        "cnn_infer_streams": cnn_infer_streams, "bert_infer": bert_infer,
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    table = models()
    names = sys.argv[2:] or list(table)
    with open(os.path.join(out, "corpus.tsv"), "a") as tsv:
        for name in names:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            record_start()
            t0 = time.time()
            table[name]()
            snap = torch.cuda.memory._snapshot()
            record_stop()
            rows = write_csv(os.path.join(out, name + ".csv.gz"), snap)
            tsv.write("%s\t%d\t%d\t%d\t%.1f\n" % (name, rows, torch.cuda.max_memory_reserved(),
                                                 torch.cuda.max_memory_allocated(),
                                                 time.time() - t0))
            tsv.flush()
            print(name, rows, "events", torch.cuda.max_memory_reserved(),
                  torch.cuda.max_memory_allocated(), flush=True)


if __name__ == "__main__":
    main()
