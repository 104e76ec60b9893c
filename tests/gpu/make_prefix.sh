#!/bin/sh
# Makes build-device/ for tests/gpu/run_on_gpu.sh: Debian 12's Qt 6 (Core, Gui, DBus, Sql with SQLite, Test) with
# the libraries they need, c10d's Gloo headers, ONNX and protobuf, unpacked into one archive, plus the
# Fashion-MNIST files. A GPU machine lent to a session has CUDA's PyTorch but no Qt and no network, so these
# travel with the working tree (`carry: ["build-device"]`, about 54 MB, which with the repository is close to the 64 MiB a call carries). Run here, in the repository root.
set -eu
out=build-device
rm -rf "$out/debs" && mkdir -p "$out/debs"
(cd "$out/debs" && apt-get download \
  qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin libqt6core6 libqt6gui6 libqt6dbus6 libqt6sql6 \
  libqt6sql6-sqlite libqt6test6 libicu72 libdouble-conversion3 libb2-1 libpcre2-16-0 libegl1 libglx0 libopengl0 \
  libglvnd0 libgl1 libfontconfig1 libfreetype6 libx11-6 libxcb1 libxau6 libxdmcp6 libxkbcommon0 libpng16-16 \
  libharfbuzz0b libgraphite2-3 libmd4c0 libbrotli1 libdbus-1-3 libexpat1 libbsd0 libmd0 libgloo-dev libonnx-dev \
  libonnx1 libonnxifi libprotobuf-dev libprotobuf32 zlib1g-dev libsqlite3-0 libsqlite3-dev libglib2.0-0 libssl-dev libssl3)
rm -rf "$out/prefix" && mkdir -p "$out/prefix"
for deb in "$out"/debs/*.deb; do dpkg -x "$deb" "$out/prefix"; done
# What the build and the checks do not use.
(cd "$out/prefix" && rm -rf usr/share/doc usr/share/man usr/share/locale usr/share/lintian \
   usr/lib/x86_64-linux-gnu/metatypes && find . -name '*.a' ! -name 'libonnxifi_loader.a' -delete)
for module in "$out"/prefix/usr/include/x86_64-linux-gnu/qt6/Qt*; do
  case ${module##*/} in QtCore|QtGui|QtSql|QtTest|QtDBus) ;; *) rm -rf "$module" ;; esac
done
tar -cJf "$out/prefix.tar.xz" -C "$out/prefix" .
rm -rf "$out/prefix" "$out/debs"
mkdir -p "$out/fashion-mnist"
cp /usr/share/datasets/fashion-mnist/*.gz "$out/fashion-mnist/"
du -sh "$out"
