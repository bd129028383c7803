// Go's sort.SliceStable (insertion sort on blocks of 20, then SymMerge), step for step.
// Strategic merge patch orders list items with a `less` that is not a strict weak order
// when an item is missing from the reference list (it answers true both ways); any
// stable sort agrees on proper orders, but only Go's own steps give upstream's result
// for those.

import { searchIndex } from '../api/binary-search.ts';

export function goSliceStable<T>(items: T[], less: (a: T, b: T) => boolean): void {
  const n = items.length;
  const lessAt = (i: number, j: number) => less(items[i]!, items[j]!);
  const swap = (i: number, j: number) => {
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  };

  const insertionSort = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };

  const swapRange = (a: number, b: number, count: number) => {
    for (let i = 0; i < count; i++) swap(a + i, b + i);
  };

  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };

  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      const i = searchIndex(m, b, (h) => !lessAt(h, a));
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      const i = searchIndex(a, m, (h) => lessAt(m, h));
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const span = mid + m;
    const p = span - 1;
    const start = searchIndex(m > mid ? span - b : a, m > mid ? mid : m, (c) => lessAt(p - c, c));
    const end = span - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
