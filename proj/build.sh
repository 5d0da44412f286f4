#!/bin/sh
set -e
rm -rf build && mkdir build
for k in add mul; do "$CUDACXX" -O2 -gencode=arch=compute_90,code=sm_90 -c "$PWD/src/$k.cu" -o build/$k.o; done
