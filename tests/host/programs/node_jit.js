// node spinning in optimized code: spin() made optimized by TurboFan (run
// with --allow-natives-syntax), then called to loop for ever in it, doubles
// in registers, no allocation, no call.
// Copyright 2026 The wine-backtrace-wct authors
// SPDX-License-Identifier: LGPL-2.1-or-later
function spin(n) {
    let x = 1.5;
    while (n > 1) { n = n - 1; x = x * 0.5 + 1; }
    return x;
}
%PrepareFunctionForOptimization(spin);
spin(1000.5);
spin(1000.5);
%OptimizeFunctionOnNextCall(spin);
spin(1000.5);
// V8 11.3's status bits: 0x10 optimized, 0x40 by TurboFan
const status = %GetOptimizationStatus(spin);
console.log(`jit: pid ${process.pid} ready, ${(status & 0x50) === 0x50 ? 'optimized by TurboFan' : 'not optimized: ' + status}`);
spin(Infinity);
