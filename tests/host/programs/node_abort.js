// node that aborts when told: says it is ready, reads a line from the FIFO
// named by argv[2] (meanwhile the test reads the process's memory map),
// then process.abort(): node prints its native back-trace
// (CaptureStackBackTrace) and its JavaScript stack, and exits 134.
// Copyright 2026 The wine-backtrace-wct authors
// SPDX-License-Identifier: LGPL-2.1-or-later
const fs = require('fs');
console.log(`abort: pid ${process.pid} ready`);
fs.readSync(fs.openSync(process.argv[2], 'r'), Buffer.alloc(100), 0, 100, null);
process.abort();
