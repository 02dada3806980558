import type { Topology } from 'topojson-specification';
import { feature } from 'topojson-client';

/** Country boundaries: Natural Earth 1:10m from the world-atlas package (ISO 3166-1 numeric ids), read once. */
export const INDIA = '356';

/** Points just off a coastline at this scale (a harbour, a beach) still count for the nearest country within this. */
const COAST_TOLERANCE_DEGREES = 0.1;

type Ring = [number, number][];
interface Country {
  id: string | null;
  name: string;
  polygons: Ring[][];
  bbox: [number, number, number, number];
}

export interface CountryHit {
  /** ISO 3166-1 numeric code ('356' India), null for the few territories without one. */
  id: string | null;
  name: string;
}

let countries: Country[] | null = null;

function load(): Country[] {
  if (countries) return countries;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const topology = require('world-atlas/countries-10m.json') as Topology;
  const collection = feature(topology, topology.objects.countries) as unknown as GeoJSON.FeatureCollection<
    GeoJSON.Polygon | GeoJSON.MultiPolygon,
    { name: string }
  >;
  countries = collection.features
    .filter((f) => f.geometry)
    .map((f) => {
      const polygons = (f.geometry.type === 'Polygon'
        ? [f.geometry.coordinates]
        : f.geometry.coordinates) as unknown as Ring[][];
      const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
      for (const ring of polygons.flat()) {
        for (const [x, y] of ring) {
          bbox[0] = Math.min(bbox[0], x);
          bbox[1] = Math.min(bbox[1], y);
          bbox[2] = Math.max(bbox[2], x);
          bbox[3] = Math.max(bbox[3], y);
        }
      }
      return { id: f.id === undefined ? null : String(f.id), name: f.properties.name, polygons, bbox };
    });
  return countries;
}

/** Even-odd rule over every ring of the polygon, so holes (enclaves, lakes) are outside. */
function inPolygon(x: number, y: number, rings: Ring[]): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

function distanceToSegment(x: number, y: number, [ax, ay]: [number, number], [bx, by]: [number, number]): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

const near = (c: Country, x: number, y: number, margin: number) =>
  x >= c.bbox[0] - margin && x <= c.bbox[2] + margin && y >= c.bbox[1] - margin && y <= c.bbox[3] + margin;

/** The country at a position (WGS 84 degrees), or null at sea. */
export function countryAt(latitude: number, longitude: number): CountryHit | null {
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180)
    throw new RangeError('latitude must be within ±90 and longitude within ±180');
  const all = load();
  for (const c of all) {
    if (near(c, longitude, latitude, 0) && c.polygons.some((p) => inPolygon(longitude, latitude, p)))
      return { id: c.id, name: c.name };
  }
  let best: { c: Country; d: number } | null = null;
  for (const c of all) {
    if (!near(c, longitude, latitude, COAST_TOLERANCE_DEGREES)) continue;
    for (const ring of c.polygons.flat()) {
      for (let i = 1; i < ring.length; i++) {
        const d = distanceToSegment(longitude, latitude, ring[i - 1], ring[i]);
        if (d <= COAST_TOLERANCE_DEGREES && (!best || d < best.d)) best = { c, d };
      }
    }
  }
  return best ? { id: best.c.id, name: best.c.name } : null;
}
