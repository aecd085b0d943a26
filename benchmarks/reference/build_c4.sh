#!/bin/sh
# Build c4bench (this folder's driver) against Christophe Steininger's c4 solver, for one board
# size, thread count and table size (c4 compiles these in: src/solver/settings.h).
#
#   benchmarks/reference/build_c4.sh C4_SOURCE OUT_DIR [WIDTHxHEIGHT] [THREADS] [TABLE_MB]
#   benchmarks/reference/build_c4.sh /work/c4ref/src /work/c4ref 7x6 1 64
#       -> /work/c4ref/c4bench-7x6-t1-64mb
#
# Defaults: 7x6, 1 thread, 64 MB. It copies C4_SOURCE to OUT_DIR/build/<variant>, sets the
# four constants there (the table gets the first prime number of 8-byte entries at or above
# TABLE_MB MB, as c4's table requires an odd size and prefers a prime), adds the driver to
# c4's CMakeLists.txt as one more target linked like c4's own programs, and builds it with
# c4's "optimise" preset (-O3 -flto, NDEBUG). Needs cmake >= 3.21, ninja and a C++20 compiler.
set -eu

if [ $# -lt 2 ] || [ $# -gt 5 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
source_dir=$(cd "$1" && pwd)
out_dir=$(mkdir -p "$2" && cd "$2" && pwd)
size=${3:-7x6}
threads=${4:-1}
table_mb=${5:-64}
here=$(cd "$(dirname "$0")" && pwd)

width=${size%x*}
height=${size#*x}
for value in "$width" "$height" "$threads" "$table_mb"; do
    case $value in
        '' | *[!0-9]*) echo "error: expected WIDTHxHEIGHT THREADS TABLE_MB as numbers, got '$size $threads $table_mb'" >&2; exit 2 ;;
    esac
done
if [ ! -f "$source_dir/src/solver/settings.h" ]; then
    echo "error: $source_dir is not c4's source tree (no src/solver/settings.h)" >&2
    exit 2
fi

# The first prime at or above table_mb * 2^20 / 8 entries.
entries=$((table_mb * 131072))
[ $((entries % 2)) -eq 1 ] || entries=$((entries + 1))
while [ "$(factor "$entries" | wc -w)" -ne 2 ]; do
    entries=$((entries + 2))
done

variant="${width}x${height}-t${threads}-${table_mb}mb"
build="$out_dir/build/$variant"
rm -rf "$build"
mkdir -p "$build"
cp -R "$source_dir/." "$build/"
rm -rf "$build/out"  # a build of the source tree itself would confuse CMake's cache
sed -i \
    -e "s/\(constexpr int BOARD_WIDTH = \)[0-9]*;/\1$width;/" \
    -e "s/\(constexpr int BOARD_HEIGHT = \)[0-9]*;/\1$height;/" \
    -e "s/\(constexpr int NUM_THREADS = \)[0-9]*;/\1$threads;/" \
    -e "s/\(constexpr uint64_t NUM_TABLE_ENTRIES = \)[0-9]*;/\1$entries;/" \
    "$build/src/solver/settings.h"
for setting in "BOARD_WIDTH = $width;" "BOARD_HEIGHT = $height;" "NUM_THREADS = $threads;" \
    "NUM_TABLE_ENTRIES = $entries;"; do
    grep -q "$setting" "$build/src/solver/settings.h" || {
        echo "error: could not set $setting in settings.h (has c4's source changed?)" >&2
        exit 1
    }
done
cp "$here/c4bench.cpp" "$build/src/c4bench.cpp"
cat >>"$build/CMakeLists.txt" <<'CMAKE'

# Added by build_c4.sh: the benchmark driver, linked like c4's own programs.
add_executable(c4bench "${CMAKE_SOURCE_DIR}/src/c4bench.cpp")
target_link_libraries(c4bench PRIVATE solver)
CMAKE

cd "$build"
cmake --preset optimise >/dev/null
cmake --build --preset optimise --target c4bench
cp out/optimise/c4bench "$out_dir/c4bench-$variant"
echo "built $out_dir/c4bench-$variant ($("$out_dir/c4bench-$variant" --config))"
