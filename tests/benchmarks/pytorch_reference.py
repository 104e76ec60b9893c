#!/usr/bin/python3
"""The plain PyTorch script a user would write for the bundled Fashion-MNIST presets, timed the same way as
trainyard-bench times the engine. Prints one JSON object: {"samples_per_second": ...}. With --first-step it prints
"first step" as soon as its first training step is done and ends (trainyard-bench times it from its start)."""
import argparse
import gzip
import json
import time

import numpy as np
import torch
from torch import nn


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def model_for(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 100), nn.ReLU(), nn.Linear(100, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 5, padding=2),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Dropout(0.4),
                         nn.Linear(1024, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--first-step", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    images = read_idx(f"{args.data}/train-images-idx3-ubyte.gz")
    labels = read_idx(f"{args.data}/train-labels-idx1-ubyte.gz")
    x = (torch.from_numpy(images.copy()).float().unsqueeze(1) / 255.0 - 0.286) / 0.353
    y = torch.from_numpy(labels.astype(np.int64))
    x, y = x.to(args.device), y.to(args.device)
    model = model_for(args.model).to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    n = x.shape[0]
    perm = torch.randperm(n, device=args.device)
    position = 0
    running_loss = 0.0
    start = 0.0
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            start = time.perf_counter()
        if position + args.batch > n:
            perm = torch.randperm(n, device=args.device)
            position = 0
        index = perm[position:position + args.batch]
        position += args.batch
        loss = loss_fn(model(x[index]), y[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if args.first_step:
            print("first step", flush=True)
            return
    elapsed = time.perf_counter() - start
    print(json.dumps({"samples_per_second": args.steps * args.batch / elapsed, "threads": torch.get_num_threads(),
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
