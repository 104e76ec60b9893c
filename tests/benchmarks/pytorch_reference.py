#!/usr/bin/python3
"""The plain PyTorch script a user would write for the bundled Fashion-MNIST presets, timed the same way as
trainyard-bench times the engine. Prints one JSON object: {"samples_per_second": ...}. With --first-step it prints
"first step" as soon as its first training step is done and ends (trainyard-bench times it from its start).
With --whole it does what `trainyard-cli run` of the preset does, as a user's script would: read the data, split off
the last 5,000 training images for validation, train --epochs epochs (Adam, a cosine schedule over all steps, a
running loss per step), score the validation split after every epoch and the test split at the end, batches of
1,000, and record every metric row in a SQLite file (--db; a commit per epoch). It prints one JSON object with
the test accuracy and the mean seconds of a step in each epoch (trainyard-bench times the whole process)."""
import argparse
import gzip
import json
import sqlite3
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


def scores(model, x, y):
    """Loss and accuracy over a split, in batches of 1,000, without gradients."""
    model.eval()
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    total, correct = 0.0, 0
    with torch.no_grad():
        for first in range(0, x.shape[0], 1000):
            logits = model(x[first:first + 1000])
            total += loss_fn(logits, y[first:first + 1000]).item()
            correct += (logits.argmax(1) == y[first:first + 1000]).sum().item()
    model.train()
    return total / x.shape[0], correct / x.shape[0]


def whole_run(args):
    torch.manual_seed(0)
    folder = args.data
    images = read_idx(f"{folder}/train-images-idx3-ubyte.gz")
    labels = read_idx(f"{folder}/train-labels-idx1-ubyte.gz")
    test_images = read_idx(f"{folder}/t10k-images-idx3-ubyte.gz")
    test_labels = read_idx(f"{folder}/t10k-labels-idx1-ubyte.gz")

    def tensors(a, b):
        return ((torch.from_numpy(a.copy()).float().unsqueeze(1) / 255.0 - 0.286) / 0.353,
                torch.from_numpy(b.astype(np.int64)))
    x, y = tensors(images, labels)
    x_test, y_test = tensors(test_images, test_labels)
    x_train, y_train, x_val, y_val = x[:-5000], y[:-5000], x[-5000:], y[-5000:]
    model = model_for(args.model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    steps_per_epoch = x_train.shape[0] // args.batch
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps_per_epoch * args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    db = sqlite3.connect(args.db)
    db.execute("CREATE TABLE IF NOT EXISTS metrics (name TEXT, step INTEGER, epoch INTEGER, time REAL, value REAL)")
    start = time.perf_counter()
    step = 0
    epoch_seconds = []
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.perf_counter()
        perm = torch.randperm(x_train.shape[0])
        rows = []
        for batch in range(steps_per_epoch):
            index = perm[batch * args.batch:(batch + 1) * args.batch]
            loss = loss_fn(model(x_train[index]), y_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            rows.append(("train/loss", step, epoch, time.perf_counter() - start, loss.item()))
        epoch_seconds.append(time.perf_counter() - epoch_start)
        val_loss, val_accuracy = scores(model, x_val, y_val)
        rows += [("val/loss", step, epoch, time.perf_counter() - start, val_loss),
                 ("val/accuracy", step, epoch, time.perf_counter() - start, val_accuracy)]
        db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?)", rows)
        db.commit()
    test_loss, test_accuracy = scores(model, x_test, y_test)
    db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?)",
                   [("test/loss", step, args.epochs, time.perf_counter() - start, test_loss),
                    ("test/accuracy", step, args.epochs, time.perf_counter() - start, test_accuracy)])
    db.commit()
    db.close()
    print(json.dumps({"test_accuracy": test_accuracy, "step_seconds": [s / steps_per_epoch for s in epoch_seconds],
                      "threads": torch.get_num_threads(), "torch": torch.__version__}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--first-step", action="store_true")
    parser.add_argument("--whole", action="store_true")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--db", default="pytorch-reference.sqlite")
    args = parser.parse_args()
    if args.whole:
        whole_run(args)
        return

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
