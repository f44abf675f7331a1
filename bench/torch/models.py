"""models.py - the four model families the PyTorch client runs, written out.

Written here in plain PyTorch rather than taken from transformers or timm,
so that every op has a deterministic CUDA implementation under
torch.use_deterministic_algorithms(True) (timm's adaptive pooling and
fused attention kernels do not) and so that the sizes are exactly the
ones named:

  gpt2  decoder-only LM, GPT-2 small's shape: 12 layers, 768 wide, 12
        heads, vocabulary 50257, sequence 512, batch 8
  bert  encoder, BERT-base's shape: 12 layers, 768 wide, 12 heads,
        vocabulary 30522, sequence 512, batch 8, masked-LM loss (15 %)
  resnet  ResNet-50's bottleneck layout (3-4-6-3), 224x224, batch 64
  vit   ViT-B/16: 16x16 patches of 224x224, 12 layers, 768 wide, batch 64

Weights are random (seeded); inputs are random tokens or images drawn once
on the CPU from a seeded generator, so two processes see the same bytes.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def gpt2_init(m):
    """GPT-2's initialisation: N(0, 0.02) weights, zero biases."""
    if isinstance(m, (nn.Linear, nn.Embedding)):
        nn.init.normal_(m.weight, std=0.02)
    if isinstance(m, nn.Linear) and m.bias is not None:
        nn.init.zeros_(m.bias)


class Attention(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        if self.causal:
            mask = torch.ones(t, t, device=x.device, dtype=torch.bool).triu(1)
            att = att.masked_fill(mask, float("-inf"))
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.att = Attention(dim, heads, causal)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TokenModel(nn.Module):
    """GPT-2-like (causal) or BERT-like (bidirectional) over tokens."""

    def __init__(self, vocab, seq, dim, layers, heads, causal):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, causal) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight
        self.apply(gpt2_init)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
            nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = None
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.body(x) + (x if self.skip is None else self.skip(x)))


class ResNet50(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        layers, cin = [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(blocks):
                layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
                cin = width * 4
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        # the mean, not adaptive pooling: its backward has no deterministic kernel
        return self.fc(self.layers(self.stem(x)).mean((2, 3)))


class ViT(nn.Module):
    def __init__(self, classes=1000, dim=768, layers=12, heads=12, patch=16, size=224):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, patch)
        n = (size // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(dim, heads, False) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)
        self.apply(gpt2_init)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x[:, 0]))


def build(name, device="cuda"):
    """(model, batch inputs, targets, loss function) for @name, seeded."""
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    if name in ("gpt2", "bert"):
        vocab, seq, batch = (50257, 512, 8) if name == "gpt2" else (30522, 512, 8)
        model = TokenModel(vocab, seq, 768, 12, 12, causal=name == "gpt2")
        idx = torch.randint(0, vocab, (batch, seq + 1), generator=gen)
        x, y = idx[:, :-1], idx[:, 1:]
        if name == "bert":  # masked LM: 15 % of the places masked (token 0), predicted
            y = idx[:, :-1].clone()
            masked = torch.rand(y.shape, generator=gen) < 0.15
            x = y.masked_fill(masked, 0)
            y = y.masked_fill(~masked, -100)

        def loss_fn(out, tgt):
            return F.cross_entropy(out.reshape(-1, out.shape[-1]), tgt.reshape(-1),
                                   ignore_index=-100)
    elif name in ("resnet", "vit"):
        model = ResNet50() if name == "resnet" else ViT()
        x = torch.randn(64, 3, 224, 224, generator=gen)
        y = torch.randint(0, 1000, (64,), generator=gen)
        loss_fn = F.cross_entropy
    else:
        raise ValueError("unknown model %r (gpt2, bert, resnet, vit)" % name)
    return model.to(device), x.to(device), y.to(device), loss_fn


MODELS = ("gpt2", "bert", "resnet", "vit")
