// Reading a child's output in linear time and bounded memory, whatever it looks like: 64 MB without a newline or
// millions of one-byte lines cost the same per byte. Nothing here concatenates a growing string: a capture keeps a
// fixed head and a tail that is compacted once it is twice its size (each byte is copied at most a few times), and
// the line splitter keeps at most `maxLineBytes` of an unfinished line and only counts the rest.

/** The first `headBytes` and the last `tailBytes` of a stream, and how much went by. */
export class BoundedCapture {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  /** Every byte written so far. */
  total = 0;
  /** Bytes copied by compaction (for the linear-time test: stays proportional to `total`). */
  copied = 0;

  constructor(
    readonly headBytes: number,
    readonly tailBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLength < this.headBytes) {
      const take = Math.min(chunk.length, this.headBytes - this.headLength);
      this.head.push(chunk.subarray(0, take));
      this.headLength += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    if (this.tailBytes === 0) return;
    // Never hold more than the tail needs of one huge chunk.
    if (chunk.length > this.tailBytes) chunk = chunk.subarray(chunk.length - this.tailBytes);
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    if (this.tailLength > this.tailBytes * 2) this.compact();
  }

  private compact(): void {
    const all = Buffer.concat(this.tail, this.tailLength);
    this.copied += all.length;
    // A copy, so the big buffer can go.
    this.tail = [Buffer.from(all.subarray(all.length - this.tailBytes))];
    this.copied += this.tailBytes;
    this.tailLength = this.tailBytes;
  }

  /** Bytes not kept (between head and tail). */
  get dropped(): number {
    return Math.max(0, this.total - this.headLength - Math.min(this.tailLength, this.tailBytes));
  }

  /** Bytes held now (bounded by headBytes + 2 × tailBytes). */
  get held(): number {
    return this.headLength + this.tailLength;
  }

  /** Head, a marker naming the bytes left out (when any), tail. */
  text(): string {
    if (this.tailLength > this.tailBytes) this.compact();
    const head = Buffer.concat(this.head, this.headLength).toString('utf8');
    const tail = Buffer.concat(this.tail, this.tailLength).toString('utf8');
    const dropped = this.dropped;
    return dropped > 0 ? `${head}\n[... ${dropped} bytes left out ...]\n${tail}` : head + tail;
  }
}

/**
 * Splits a byte stream into lines (LF, a trailing CR dropped) in linear time. A line longer than `maxLineBytes` is
 * cut there: its start is passed on once it ends, with the number of bytes cut; the rest is only counted.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private cut = 0;
  /** Lines emitted. */
  lines = 0;

  constructor(
    private readonly onLine: (line: string, cutBytes: number) => void,
    readonly maxLineBytes = 4096,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.keep(chunk.subarray(start, nl));
      this.emit();
      start = nl + 1;
    }
  }

  /** The unterminated rest, if any, as a last line. */
  end(): void {
    if (this.pendingLength > 0 || this.cut > 0) this.emit();
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    const room = this.maxLineBytes - this.pendingLength;
    if (room <= 0) {
      this.cut += part.length;
      return;
    }
    if (part.length > room) {
      this.cut += part.length - room;
      part = part.subarray(0, room);
    }
    this.pending.push(part);
    this.pendingLength += part.length;
  }

  private emit(): void {
    const parts = this.pending;
    let line = parts.length === 0 ? '' : parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts, this.pendingLength).toString('utf8');
    if (this.cut === 0 && line.endsWith('\r')) line = line.slice(0, -1);
    const cut = this.cut;
    this.pending = [];
    this.pendingLength = 0;
    this.cut = 0;
    this.lines++;
    this.onLine(line, cut);
  }
}
