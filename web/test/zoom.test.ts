// Unit tests of the graph's zoom: fitting a drawing to its box, and the steps.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fitScale, maxScale, minScale, zoomed } from '../src/zoom.js';

test('a drawing is fitted to its box whole, never blown up', () => {
  const cases: [{ width: number; height: number }, { width: number; height: number }, number][] = [
    [{ width: 2000, height: 500 }, { width: 1000, height: 600 }, 0.5],
    [{ width: 1000, height: 1200 }, { width: 1000, height: 600 }, 0.5],
    [{ width: 400, height: 300 }, { width: 1000, height: 600 }, 1],
    [{ width: 100000, height: 10 }, { width: 100, height: 600 }, minScale],
    [{ width: 0, height: 0 }, { width: 100, height: 100 }, 1],
  ];
  for (const [natural, box, want] of cases) {
    assert.equal(fitScale(natural, box), want, JSON.stringify([natural, box]));
  }
});

test('zooming steps in and out and stays within its limits', () => {
  assert.equal(zoomed(1, 1), 1.25);
  assert.equal(zoomed(1.25, -1), 1);
  assert.equal(zoomed(maxScale, 1), maxScale);
  assert.equal(zoomed(minScale, -1), minScale);
});
