"""Writes PTX for the mirage-run register tests.

    live-values-ptx.py NAME=COUNT...

One kernel NAME(.param .u64 p) per argument that loads COUNT f32 values with
volatile loads, which ptxas may neither drop nor reorder, and only then
stores them back in reverse order: all COUNT values are live at once, so the
kernel needs about COUNT registers per thread, and spills above 255.
"""
import sys

print(".version 7.8\n.target sm_80\n.address_size 64")
for arg in sys.argv[1:]:
    name, count = arg.split("=")
    count = int(count)
    print(f"\n.visible .entry {name}(.param .u64 {name}_param_0)\n{{")
    print(f"\t.reg .f32 \t%f<{count + 1}>;\n\t.reg .b64 \t%rd<3>;")
    print(f"\tld.param.u64 \t%rd1, [{name}_param_0];")
    print("\tcvta.to.global.u64 \t%rd2, %rd1;")
    for i in range(1, count + 1):
        print(f"\tld.volatile.global.f32 \t%f{i}, [%rd2+{4 * (i - 1)}];")
    for i in range(1, count + 1):
        print(f"\tst.volatile.global.f32 \t[%rd2+{4 * (count - i)}], %f{i};")
    print("\tret;\n}")
