// Draws the Deskbase icon (a white database cylinder on a blue rounded square) and writes it as
// icon.png (512 px, Linux and the tray), icon.ico (Windows), icon.icns (macOS) and trayTemplate.png with
// trayTemplate@2x.png (the macOS menu bar's template image), with no image library:
// shapes are sampled 4x4 per pixel for smooth edges, then encoded as PNG with node:zlib.
// Run: node build/make-icons.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ]);
}

// The drawing, in unit coordinates (0..1, y down). Each shape answers "is this point inside?".
const inRoundedSquare = (x, y) => {
  const m = 0.06, r = 0.2;
  const qx = Math.max(Math.abs(x - 0.5) - (0.5 - m - r), 0), qy = Math.max(Math.abs(y - 0.5) - (0.5 - m - r), 0);
  return qx * qx + qy * qy <= r * r;
};
const CX = 0.5, RX = 0.25, RY = 0.075, TOP = 0.3, BOTTOM = 0.7;
const ellipse = (x, y, cy) => ((x - CX) / RX) ** 2 + ((y - cy) / RY) ** 2;
const inCylinder = (x, y) => ellipse(x, y, TOP) <= 1 || ellipse(x, y, BOTTOM) <= 1 || (Math.abs(x - CX) <= RX && y >= TOP && y <= BOTTOM);
const onBand = (x, y) => [0.433, 0.566].some((cy) => y >= cy && Math.abs(Math.sqrt(ellipse(x, y, cy)) - 1) < 0.09);
const inLid = (x, y) => ellipse(x, y, TOP) <= 0.78;

const lerp = (a, b, t) => a.map((v, i) => Math.round(v + (b[i] - v) * t));
function colorAt(x, y) {
  if (!inRoundedSquare(x, y)) return null;
  if (inCylinder(x, y)) {
    if (onBand(x, y)) return [37, 99, 235];
    return inLid(x, y) ? [219, 234, 254] : [255, 255, 255];
  }
  return lerp([59, 130, 246], [30, 64, 175], y); // blue, lighter at the top
}

// The macOS menu-bar icon is a template image: black and alpha only, which macOS tints for light and dark
// menu bars. The cylinder alone, its bands cut out, filling the square.
function templateAt(x, y) {
  const u = 0.5 + (x - 0.5) * 0.62, v = 0.5 + (y - 0.5) * 0.62;
  return inCylinder(u, v) && !onBand(u, v) ? [0, 0, 0] : null;
}

function render(size, at = colorAt) {
  const out = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const c = at((px + (sx + 0.5) / S) / size, (py + (sy + 0.5) / S) / size);
          if (c) { r += c[0]; g += c[1]; b += c[2]; a++; }
        }
      }
      const i = (py * size + px) * 4;
      if (a > 0) out.set([Math.round(r / a), Math.round(g / a), Math.round(b / a), Math.round((255 * a) / (S * S))], i);
    }
  }
  return encodePng(size, out);
}

function encodeIco(pngs) {
  const header = Buffer.alloc(6 + 16 * pngs.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(([size, png], i) => {
    const e = 6 + 16 * i;
    header[e] = size >= 256 ? 0 : size; // 0 means 256
    header[e + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, e + 4); // planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(png.length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...pngs.map(([, png]) => png)]);
}

function encodeIcns(entries) {
  const parts = entries.map(([type, png]) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

const dir = new URL('.', import.meta.url);
const png = Object.fromEntries([16, 24, 32, 48, 64, 128, 256, 512, 1024].map((s) => [s, render(s)]));
writeFileSync(new URL('icon.png', dir), png[512]);
writeFileSync(new URL('icon.ico', dir), encodeIco([16, 24, 32, 48, 64, 128, 256].map((s) => [s, png[s]])));
writeFileSync(new URL('icon.icns', dir), encodeIcns([['ic07', png[128]], ['ic08', png[256]], ['ic09', png[512]], ['ic10', png[1024]]]));
writeFileSync(new URL('trayTemplate.png', dir), render(16, templateAt));
writeFileSync(new URL('trayTemplate@2x.png', dir), render(32, templateAt));
console.log('Wrote build/icon.png, build/icon.ico, build/icon.icns, build/trayTemplate.png, build/trayTemplate@2x.png');
