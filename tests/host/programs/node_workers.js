// node with two blocked workers: one in Atomics.wait on a shared Int32, one
// in a synchronous read of the FIFO named by argv[2]. Once the reader has a
// line, the main thread prints it and wakes the waiter; then all end.
// Copyright 2026 The wine-backtrace-wct authors
// SPDX-License-Identifier: LGPL-2.1-or-later
const { Worker } = require('worker_threads');
const shared = new Int32Array(new SharedArrayBuffer(4));
const waiter = new Worker(`
    const { workerData, parentPort } = require('worker_threads');
    parentPort.postMessage('woke ' + Atomics.wait(workerData, 0, 0));`, { eval: true, workerData: shared });
const reader = new Worker(`
    const { workerData, parentPort } = require('worker_threads');
    const fs = require('fs');
    const fd = fs.openSync(workerData, 'r');
    const buffer = Buffer.alloc(100);
    const n = fs.readSync(fd, buffer, 0, buffer.length, null);
    parentPort.postMessage(buffer.toString('utf8', 0, n).trim());`, { eval: true, workerData: process.argv[2] });
reader.on('message', (line) => {
    console.log('read: ' + line);
    Atomics.store(shared, 0, 1);
    Atomics.notify(shared, 0);
});
waiter.on('message', (text) => console.log('waiter: ' + text));
console.log(`workers: pid ${process.pid} ready`);
