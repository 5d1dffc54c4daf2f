// The payload of one journal entry: the statements of one committed transaction with their bound
// parameters, in a compact binary form that round-trips every JavaScript value exactly (JSON would
// turn -0 into 0 and lose lone surrogates). Replay binds the very same values, so it is deterministic.
//
//   payload   := varint(statementCount) statement*
//   statement := sqlRef varint(paramCount) param*
//   sqlRef    := varint(0) text            a new SQL text, remembered for this entry
//              | varint(k)                 the k-th SQL text already seen in this entry (1-based)
//   param     := 0 | 1 float64le | 3 zigzag-varint | text
//   text      := 2 varint(byteLength) utf8 | 4 varint(byteLength) utf16le
import type { SqlValue } from '../model/types.js';

export interface JournaledStatement {
  sql: string;
  params: SqlValue[];
}

const Tag = { Null: 0, Float: 1, Utf8: 2, Int: 3, Utf16: 4 } as const;

/** Integers in this range take the short varint form; anything else is stored as its float64 bits. */
const INT_LIMIT = 2 ** 31;
/** Any surrogate code unit: such strings may be ill-formed, which UTF-8 cannot carry, so use UTF-16. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Accumulates the statements of one transaction as they run (values are copied at once). */
export class StatementEncoder {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;
  private count = 0;
  private sqlIds = new Map<string, number>();

  add(sql: string, params: readonly SqlValue[]): void {
    this.count++;
    const known = this.sqlIds.get(sql);
    if (known !== undefined) {
      this.varint(known);
    } else {
      this.sqlIds.set(sql, this.sqlIds.size + 1);
      this.varint(0);
      this.text(sql);
    }
    this.varint(params.length);
    for (const value of params) this.param(value);
  }

  /** Each distinct SQL text added. */
  statementTexts(): Iterable<string> {
    return this.sqlIds.keys();
  }

  get statementCount(): number {
    return this.count;
  }

  /** The payload's size so far, in bytes (without the statement count in front). */
  get byteLength(): number {
    return this.pos;
  }

  /** The finished payload as its pieces, without a copy: the encoder must not be used after. */
  parts(): Buffer[] {
    const head = Buffer.allocUnsafe(10);
    return [head.subarray(0, writeVarint(head, 0, this.count)), this.buf.subarray(0, this.pos)];
  }

  /** The finished payload (a copy, so the encoder may be dropped). */
  finish(): Buffer {
    const head = Buffer.allocUnsafe(10);
    const headLength = writeVarint(head, 0, this.count);
    return Buffer.concat([head.subarray(0, headLength), this.buf.subarray(0, this.pos)]);
  }

  private param(value: SqlValue): void {
    if (value === null) {
      this.byte(Tag.Null);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= -INT_LIMIT && value < INT_LIMIT && !Object.is(value, -0)) {
        this.byte(Tag.Int);
        this.varint(value >= 0 ? value * 2 : -value * 2 - 1);
      } else {
        this.byte(Tag.Float);
        this.ensure(8);
        this.pos = this.buf.writeDoubleLE(value, this.pos);
      }
    } else if (typeof value === 'string') {
      this.text(value);
    } else {
      throw new TypeError(`cannot journal a parameter of type ${typeof value}`);
    }
  }

  private text(value: string): void {
    const encoding = SURROGATE.test(value) ? 'utf16le' : 'utf8';
    const length = Buffer.byteLength(value, encoding);
    this.byte(encoding === 'utf8' ? Tag.Utf8 : Tag.Utf16);
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, encoding);
  }

  private byte(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  private varint(value: number): void {
    this.ensure(10);
    this.pos = writeVarint(this.buf, this.pos, value);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + extra));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}

/**
 * Checks, before a statement runs, that the journal can carry its parameters: once the statement has
 * changed the database it is too late to refuse them.
 */
export function assertSqlValues(params: readonly unknown[]): void {
  for (const value of params) {
    if (value !== null && typeof value !== 'number' && typeof value !== 'string') {
      throw new TypeError(`a write parameter must be a string, a number or null, not ${typeof value}`);
    }
  }
}

/** Unsigned LEB128 with arithmetic (not bitwise) so values up to 2^53 stay exact. */
function writeVarint(buf: Buffer, pos: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    buf[pos++] = (v % 0x80) + 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[pos++] = v;
  return pos;
}

/** Reads a payload back. Throws on malformed input (the caller names the journal file and offset). */
export function decodeStatements(payload: Uint8Array): JournaledStatement[] {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > buf.length) throw new Error('journal entry is truncated');
  };
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      need(1);
      const b = buf[pos++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 63) throw new Error('journal entry has a malformed number');
    }
  };
  const bytes = (encoding: 'utf8' | 'utf16le'): string => {
    const length = varint();
    need(length);
    pos += length;
    return buf.toString(encoding, pos - length, pos);
  };
  const param = (): SqlValue => {
    need(1);
    const tag = buf[pos++];
    switch (tag) {
      case Tag.Null: return null;
      case Tag.Float: need(8); pos += 8; return buf.readDoubleLE(pos - 8);
      case Tag.Utf8: return bytes('utf8');
      case Tag.Int: { const z = varint(); return z % 2 === 0 ? z / 2 : -(z + 1) / 2; }
      case Tag.Utf16: return bytes('utf16le');
      default: throw new Error(`journal entry has an unknown value tag ${tag}`);
    }
  };
  const sqls: string[] = [];
  const statements: JournaledStatement[] = [];
  const count = varint();
  for (let i = 0; i < count; i++) {
    const ref = varint();
    if (ref > sqls.length) throw new Error('journal entry refers to an unknown statement');
    const sql = ref === 0 ? param() : sqls[ref - 1];
    if (typeof sql !== 'string') throw new Error('journal entry has a statement that is not text');
    if (ref === 0) sqls.push(sql);
    const params: SqlValue[] = [];
    for (let n = varint(); n > 0; n--) params.push(param());
    statements.push({ sql, params });
  }
  if (pos !== buf.length) throw new Error('journal entry has trailing bytes');
  return statements;
}
