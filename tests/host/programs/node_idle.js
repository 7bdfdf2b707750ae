// An idle node: a timer far away keeps its event loop waiting.
// Copyright 2026 The wine-backtrace-wct authors
// SPDX-License-Identifier: LGPL-2.1-or-later
setTimeout(() => {}, 1e9);
console.log(`node: pid ${process.pid} ready`);
