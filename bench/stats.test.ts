import { describe, expect, it } from 'vitest';
import { median, percentile, splitIntoRounds, spread } from './stats';

describe('percentile', () => {
  it('is the nearest rank, not an interpolation', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile([5, 1, 9], 99)).toBe(9);
  });

  it('refuses no samples and a percentile out of range', () => {
    expect(() => percentile([], 50)).toThrow();
    expect(() => percentile([1], 0)).toThrow();
    expect(() => percentile([1], 101)).toThrow();
  });
});

describe('median', () => {
  it('takes the middle sample, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });
});

describe('spread', () => {
  it('is the smallest, the median and the largest sample', () => {
    expect(spread([7, 3, 5, 11])).toEqual({ min: 3, median: 6, max: 11 });
    expect(() => spread([])).toThrow();
  });
});

describe('splitIntoRounds', () => {
  it('keeps the order and gives the first rounds the remainder', () => {
    expect(splitIntoRounds([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([[1, 2, 3], [4, 5], [6, 7]]);
    expect(splitIntoRounds([1, 2], 2)).toEqual([[1], [2]]);
  });

  it('refuses fewer samples than rounds, and rounds that are not a positive integer', () => {
    expect(() => splitIntoRounds([1], 2)).toThrow();
    expect(() => splitIntoRounds([1, 2], 0)).toThrow();
    expect(() => splitIntoRounds([1, 2], 1.5)).toThrow();
  });
});
