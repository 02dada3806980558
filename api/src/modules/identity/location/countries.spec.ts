import { countryAt, INDIA } from './countries';

describe('countryAt (Natural Earth 1:10m boundaries from world-atlas)', () => {
  it.each([
    ['New Delhi', 28.6139, 77.209],
    ['Mumbai, on the coast', 18.9388, 72.8354],
    ['Chennai, on the coast', 13.0827, 80.2707],
    ['Kolkata', 22.5726, 88.3639],
    ['Bengaluru', 12.9716, 77.5946],
    ['Port Blair, Andaman Islands', 11.6234, 92.7265],
    ['Kavaratti, Lakshadweep', 10.5669, 72.642],
    ['Guwahati', 26.1445, 91.7362],
  ])('finds India at %s', (_place, lat, lon) => {
    expect(countryAt(lat, lon)).toEqual({ id: INDIA, name: 'India' });
  });

  it.each([
    ['Kathmandu', 27.7172, 85.324, 'Nepal'],
    ['Dhaka', 23.8103, 90.4125, 'Bangladesh'],
    ['Colombo', 6.9271, 79.8612, 'Sri Lanka'],
    ['Lahore', 31.5204, 74.3587, 'Pakistan'],
    ['Thimphu', 27.4728, 89.639, 'Bhutan'],
    ['London', 51.5074, -0.1278, 'United Kingdom'],
    ['Dubai', 25.2048, 55.2708, 'United Arab Emirates'],
    ['Sydney', -33.8688, 151.2093, 'Australia'],
  ])('finds a neighbour or elsewhere: %s', (_place, lat, lon, name) => {
    const hit = countryAt(lat, lon);
    expect(hit?.name).toBe(name);
    expect(hit?.id).not.toBe(INDIA);
  });

  it('answers null at sea, far from any coast', () => {
    expect(countryAt(0, 0)).toBeNull();
    expect(countryAt(10, 65)).toBeNull(); // Arabian Sea
  });

  it('refuses positions that are not on the globe', () => {
    expect(() => countryAt(91, 0)).toThrow(RangeError);
    expect(() => countryAt(0, -181)).toThrow(RangeError);
    expect(() => countryAt(Number.NaN, 0)).toThrow(RangeError);
  });
});
