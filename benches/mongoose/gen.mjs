// The fixed-seed generator (xorshift) of the Node.js benches, as the Rust
// benches use one: shapes.mjs and e2e.mjs draw their documents from it.
let seed = 0x5eed1234n;
export function next() {
  seed ^= (seed << 13n) & 0xffffffffffffffffn;
  seed ^= seed >> 7n;
  seed ^= (seed << 17n) & 0xffffffffffffffffn;
  return Number(seed & 0xffffffffn);
}
const LETTERS = 'abcdefghijklmnopqrstuvwxyz ';
export const letters = (n) => Array.from({ length: n }, () => LETTERS[next() % LETTERS.length]).join('');
export const date = () => new Date(Date.UTC(2026, 0, 1));
