#pragma once
// Pickled PyTorch files (torch.save's zip archive holding a pickle, or a bare pickle; .pt, .pth, .bin, .ckpt) are
// never opened: unpickling runs whatever code the file names. Only the name and the first bytes are looked at, so
// that such a file gets a refusal that says how to save a safetensors file instead, not a parse error.

#include "error.h"

#include <QByteArray>
#include <QString>

namespace ty {

// How the refusal's message begins (after the file's name).
inline constexpr char kPickleRefusal[] = "a pickled PyTorch file";

// An Error naming `path` when it is a pickle by its first bytes (`firstBytes`: the file's first 9 bytes, fewer for a
// shorter file): a zip archive, a pickle of protocol 2 to 5, or a file named .pt, .pth, .bin, .pkl or .ckpt that is
// not a safetensors file (8 bytes of header length, then the header's "{"). Success otherwise.
Status refusePickledFile(const QString &path, const QByteArray &firstBytes);

} // namespace ty
