/**
 * A map from queue offset to value, kept in offset order, built for the ProcessQueue's access pattern:
 * offsets arrive increasing (append at the end), removals hit any position (mostly near the front), and
 * the smallest and largest live keys are read all the time.
 *
 * Layout: parallel arrays of keys and values; a removed slot becomes a hole (`undefined` value) and
 * keeps its key, so the key array stays sorted and binary search works. Holes at the front are skipped
 * by a moving head, holes at the end are popped; the arrays are compacted when the head passes half of
 * them. Appends and front removals are O(1) amortised, any lookup O(log n); an insert in the middle
 * (only orderly rollbacks do that) is O(n).
 */

/** Compact once this many leading slots are dead and they are more than half the array. */
const COMPACT_MIN_HEAD = 1024;

/**
 * An offset-ordered map.
 */
export class OffsetOrderedList<T extends object> {
  private keys: number[] = [];
  private values: (T | undefined)[] = [];
  private head = 0;
  private live = 0;

  /** Number of live entries. */
  get size(): number {
    return this.live;
  }

  /** Inserts or replaces; returns true when the key was not present. */
  set(key: number, value: T): boolean {
    const length = this.keys.length;
    if (this.live === 0) {
      this.keys = [key];
      this.values = [value];
      this.head = 0;
      this.live = 1;
      return true;
    }
    const lastKey = this.keys[length - 1] as number;
    if (key > lastKey) {
      this.keys.push(key);
      this.values.push(value);
      this.live++;
      return true;
    }
    const index = this.lowerBound(key);
    if (index < length && this.keys[index] === key) {
      const isNew = this.values[index] === undefined;
      this.values[index] = value;
      if (isNew) this.live++;
      return isNew;
    }
    if (index === this.head && this.head > 0) {
      this.head--;
      this.keys[this.head] = key;
      this.values[this.head] = value;
    } else {
      this.keys.splice(index, 0, key);
      this.values.splice(index, 0, value);
    }
    this.live++;
    return true;
  }

  /** The value at `key`, if present. */
  get(key: number): T | undefined {
    const index = this.lowerBound(key);
    return this.keys[index] === key ? this.values[index] : undefined;
  }

  /** True when `key` is present. */
  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  /** Removes `key`; returns the removed value, if any. */
  delete(key: number): T | undefined {
    const index = this.lowerBound(key);
    if (this.keys[index] !== key) return undefined;
    const value = this.values[index];
    if (value === undefined) return undefined;
    this.values[index] = undefined;
    this.live--;
    this.trim();
    return value;
  }

  /** The smallest live key. */
  firstKey(): number | undefined {
    return this.live === 0 ? undefined : this.keys[this.head];
  }

  /** The largest live key. */
  lastKey(): number | undefined {
    return this.live === 0 ? undefined : this.keys[this.keys.length - 1];
  }

  /** The value of the smallest live key. */
  firstValue(): T | undefined {
    return this.live === 0 ? undefined : this.values[this.head];
  }

  /** Removes and returns the smallest entry. */
  shift(): [number, T] | undefined {
    if (this.live === 0) return undefined;
    const key = this.keys[this.head] as number;
    const value = this.values[this.head] as T;
    this.values[this.head] = undefined;
    this.live--;
    this.trim();
    return [key, value];
  }

  /** Live entries in offset order. Do not modify the list while iterating. */
  *entries(): IterableIterator<[number, T]> {
    for (let i = this.head; i < this.keys.length; i++) {
      const value = this.values[i];
      if (value !== undefined) yield [this.keys[i] as number, value];
    }
  }

  /** Live values in offset order. Do not modify the list while iterating. */
  *valuesInOrder(): IterableIterator<T> {
    for (let i = this.head; i < this.keys.length; i++) {
      const value = this.values[i];
      if (value !== undefined) yield value;
    }
  }

  /** Removes everything. */
  clear(): void {
    this.keys = [];
    this.values = [];
    this.head = 0;
    this.live = 0;
  }

  /** First index in [head, length) whose key is >= `key`. */
  private lowerBound(key: number): number {
    let low = this.head;
    let high = this.keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.keys[mid] as number) < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private trim(): void {
    if (this.live === 0) {
      this.clear();
      return;
    }
    while (this.values[this.head] === undefined) this.head++;
    while (this.values[this.values.length - 1] === undefined) {
      this.values.pop();
      this.keys.pop();
    }
    if (this.head >= COMPACT_MIN_HEAD && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.values = this.values.slice(this.head);
      this.head = 0;
    }
  }
}
