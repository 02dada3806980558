/** Verhoeff check digit (dihedral group D5), as Aadhaar numbers use for their last digit. */

const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
const INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

/** Runs the checksum over `digits`, the rightmost digit at position `offset`. */
function checksum(digits: string, offset: number): number {
  let c = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    c = D[c][P[(i + offset) % 8][digit]];
  }
  return c;
}

/** The digit to append to `digits` so that the whole passes the Verhoeff check. */
export function verhoeffCheckDigit(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new Error('Only decimal digits have a Verhoeff check digit');
  return String(INV[checksum(digits, 1)]);
}

/** True when the last digit of `number` is its Verhoeff check digit. */
export function verhoeffValid(number: string): boolean {
  return /^\d+$/.test(number) && checksum(number, 0) === 0;
}

/** An Aadhaar number: 12 digits, not starting with 0 or 1, the last being the Verhoeff check digit. */
export function isValidAadhaar(number: string): boolean {
  return /^[2-9]\d{11}$/.test(number) && verhoeffValid(number);
}
