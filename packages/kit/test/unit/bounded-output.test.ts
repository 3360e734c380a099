// A child's output is read in time linear in its size and in bounded memory, whatever its lines look like: before,
// 64 MB of stderr without a newline cost the gateway 26 s of CPU (each chunk was added to a growing string and split
// again) and 50 MB of short lines became 524,296 calls. Judged by an operation count (bytes copied) and by CPU time
// growth with generous bounds: a quadratic pass grows 16 times where these allow 2 or 3.
import { BoundedCapture, LineSplitter } from '@hookwise/kit';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024; // what a pipe hands over at most per read

/** Feeds `total` bytes of `chunk` (repeated) to both readers as runProcess does; returns them and the CPU ms used. */
function feed(chunk: Buffer, total: number): { capture: BoundedCapture; splitter: LineSplitter; lines: number; longest: number; cpuMs: number } {
  const capture = new BoundedCapture(8 * 1024, 1024 * 1024 - 8 * 1024);
  let lines = 0;
  let longest = 0;
  const splitter = new LineSplitter((line) => {
    lines++;
    longest = Math.max(longest, line.length);
  }, 4096);
  const start = process.cpuUsage();
  for (let sent = 0; sent < total; sent += chunk.length) {
    capture.push(chunk);
    splitter.push(chunk);
  }
  splitter.end();
  const used = process.cpuUsage(start);
  return { capture, splitter, lines, longest, cpuMs: (used.user + used.system) / 1000 };
}

/** The best of a few runs (the first warms the code up), so that a loaded machine's noise counts less. */
function bestOf<T extends { cpuMs: number }>(runs: number, run: () => T): T {
  let best: T | undefined;
  for (let i = 0; i < runs; i++) {
    const result = run();
    if (!best || result.cpuMs < best.cpuMs) best = result;
  }
  return best!;
}

const noNewline = Buffer.alloc(CHUNK, 0x78);
const oneByteLines = Buffer.from('x\n'.repeat(CHUNK / 2));

it('16 MB without a newline: bytes copied and memory held stay proportional / bounded, CPU grows linearly', () => {
  const small = bestOf(3, () => feed(noNewline, MB));
  const big = bestOf(3, () => feed(noNewline, 16 * MB));
  expect(big.capture.total).toBe(16 * MB);
  // Operation count: compaction copies each byte a bounded number of times.
  expect(big.capture.copied).toBeLessThanOrEqual(3 * big.capture.total);
  expect(big.capture.held).toBeLessThanOrEqual(8 * 1024 + 2 * MB);
  // One line, cut at 4 KiB, the rest counted, not kept.
  expect(big.lines).toBe(1);
  expect(big.longest).toBe(4096);
  expect(big.capture.text().length).toBeLessThan(MB + 100);
  expect(big.capture.text()).toContain(`[... ${16 * MB - MB} bytes left out ...]`);
  // 16 times the input: linear is ~16 times the time; quadratic would be ~256. Allowed: 48 times, plus slack.
  expect(big.cpuMs).toBeLessThan(small.cpuMs * 48 + 200);
});

it('1 MB of 1-byte lines takes time in proportion to its size, like 16 MB without a newline', () => {
  const lines = bestOf(2, () => feed(oneByteLines, MB));
  const lines4 = bestOf(2, () => feed(oneByteLines, 4 * MB));
  expect(lines.lines).toBe(MB / 2);
  expect(lines4.lines).toBe(2 * MB);
  expect(lines4.cpuMs).toBeLessThan(lines.cpuMs * 12 + 200);
});
