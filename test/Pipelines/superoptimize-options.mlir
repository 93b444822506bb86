// The pass and the pipeline take their search defaults from one place
// (Mirage/Search/SearchDefaults.h), and the pipeline forwards every search
// option to mirage-superoptimize.
// RUN: mirage-opt %s --mirage-superoptimize --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULTS
// RUN: mirage-opt %s --mirage-superoptimize-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULTS
// RUN: mirage-opt %s --mirage-superoptimize-pipeline="target=a100 max-block-ops=3 module-time-budget=50 threads=1 time-budget=5 prune=false prune-z3=true prune-exp-depth=false prune-outputs=false cost-bound=false cost-gap=0.25 split-reduced-classes=true split-kernels=false online-softmax=false fuse-prologues=false predefined-kernels=library progress=false progress-after=0.5 cache=off" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SET
// The PTX pipeline emits the pre-defined kernels it keeps itself, so it
// always prices them as emitted and has no option to say otherwise.
// RUN: mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{output-dir=%t})" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{predefined-kernels=library})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX-NO-OPTION

module {}

// PTX: mirage-superoptimize{
// PTX-SAME: predefined-kernels=expansion
// PTX-NO-OPTION: no such option predefined-kernels

// DEFAULTS: mirage-superoptimize{
// DEFAULTS-SAME: cost-bound=true
// DEFAULTS-SAME: cost-gap=3.000000e-02
// DEFAULTS-SAME: fuse-prologues=true
// DEFAULTS-SAME: max-block-ops=7
// DEFAULTS-SAME: module-time-budget=6.000000e+02
// DEFAULTS-SAME: online-softmax=true
// DEFAULTS-SAME: predefined-kernels=expansion
// DEFAULTS-SAME: progress=true
// DEFAULTS-SAME: progress-after=3.000000e+00
// DEFAULTS-SAME: prune=true
// DEFAULTS-SAME: prune-exp-depth=true
// DEFAULTS-SAME: prune-outputs=true
// DEFAULTS-SAME: prune-z3=false
// DEFAULTS-SAME: split-kernels=true
// DEFAULTS-SAME: split-reduced-classes=false
// DEFAULTS-SAME: target=h100
// DEFAULTS-SAME: threads=0
// DEFAULTS-SAME: time-budget=6.000000e+01

// SET: mirage-superoptimize{
// SET-SAME: cache=off
// SET-SAME: cost-bound=false
// SET-SAME: cost-gap=2.500000e-01
// SET-SAME: fuse-prologues=false
// SET-SAME: max-block-ops=3
// SET-SAME: module-time-budget=5.000000e+01
// SET-SAME: online-softmax=false
// SET-SAME: predefined-kernels=library
// SET-SAME: progress=false
// SET-SAME: progress-after=5.000000e-01
// SET-SAME: prune=false
// SET-SAME: prune-exp-depth=false
// SET-SAME: prune-outputs=false
// SET-SAME: prune-z3=true
// SET-SAME: split-kernels=false
// SET-SAME: split-reduced-classes=true
// SET-SAME: target=a100
// SET-SAME: threads=1
// SET-SAME: time-budget=5.000000e+00
