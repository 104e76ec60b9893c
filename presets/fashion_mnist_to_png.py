#!/usr/bin/env python3
"""Writes Fashion-MNIST as a folder of PNG images, one sub-folder per class, for dataset.image_folder.

    python3 fashion_mnist_to_png.py OUT [--source DIR] [--limit N] [--list]

OUT/train/<class>/<index>.png holds the 60,000 training images and OUT/test/<class>/<index>.png the 10,000 test
images (the index is the image's place in its IDX file), as 28 x 28 grey PNG files. The class folders are named
after the classes ("T-shirt_top", "Trouser", ... "Ankle_boot"). --limit N writes only the first N images of each
file; --list also writes OUT/images.csv (path, label, split) for dataset.image_list. Only the Python standard
library is used; the source is Debian's dataset-fashion-mnist package unless --source says otherwise.
"""

import argparse
import gzip
import os
import struct
import sys
import zlib

CLASSES = ["T-shirt_top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle_boot"]


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, kind, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or kind != 0x08:
        sys.exit(f"{path}: not an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return dims, data[4 + 4 * ndim:]


def png_chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def grey_png(pixels, width, height):
    rows = b"".join(b"\x00" + pixels[y * width:(y + 1) * width] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grey, no interlace
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(rows, 6))
            + png_chunk(b"IEND", b""))


def find(source, stem):
    for name in (stem + ".gz", stem):
        path = os.path.join(source, name)
        if os.path.exists(path):
            return path
    sys.exit(f"{source}: no {stem}(.gz); install dataset-fashion-mnist or give --source")


def write_split(source, out, split, stem, limit, listing):
    (count, height, width), images = read_idx(find(source, stem + "-images-idx3-ubyte"))
    (label_count,), labels = read_idx(find(source, stem + "-labels-idx1-ubyte"))
    if label_count != count:
        sys.exit(f"{source}: {count} images but {label_count} labels in the {split} files")
    n = min(count, limit) if limit > 0 else count
    size = height * width
    for i in range(n):
        relative = os.path.join(split, CLASSES[labels[i]], f"{i:05d}.png")
        os.makedirs(os.path.join(out, split, CLASSES[labels[i]]), exist_ok=True)
        with open(os.path.join(out, relative), "wb") as f:
            f.write(grey_png(images[i * size:(i + 1) * size], width, height))
        listing.append((relative, CLASSES[labels[i]], split))
    return n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the folder to write (created when missing)")
    parser.add_argument("--source", default="/usr/share/datasets/fashion-mnist", help="folder of the four IDX files")
    parser.add_argument("--limit", type=int, default=0, help="write only the first N images of each split (0: all)")
    parser.add_argument("--list", action="store_true", help="also write images.csv for dataset.image_list")
    args = parser.parse_args()
    listing = []
    written = write_split(args.source, args.out, "train", "train", args.limit, listing)
    written += write_split(args.source, args.out, "test", "t10k", args.limit, listing)
    if args.list:
        with open(os.path.join(args.out, "images.csv"), "w", encoding="utf-8") as f:
            f.write("path,label,split\n")
            for row in listing:
                f.write(",".join(row) + "\n")
    print(f"wrote {written} PNG images under {args.out}")


if __name__ == "__main__":
    main()
