package io.crigate.topology;

import java.util.BitSet;
import java.util.stream.IntStream;

/** An immutable set of CPU (or memory node) ids, read and written in the kernel's list format {@code 0-3,8}. */
public final class CpuSet {

  public static final CpuSet EMPTY = new CpuSet(new BitSet());

  private final BitSet bits;

  private CpuSet(BitSet bits) {
    this.bits = bits;
  }

  public static CpuSet of(int... ids) {
    BitSet bits = new BitSet();
    for (int id : ids) {
      bits.set(id);
    }
    return new CpuSet(bits);
  }

  public static CpuSet of(IntStream ids) {
    return of(ids.toArray());
  }

  /** @throws IllegalArgumentException naming the text when it is not a list such as {@code 0-3,8} */
  public static CpuSet parse(String list) {
    BitSet bits = new BitSet();
    String text = list.strip();
    if (text.isEmpty()) {
      return EMPTY;
    }
    for (String part : text.split(",")) {
      try {
        int dash = part.indexOf('-');
        int from = Integer.parseInt(dash < 0 ? part.strip() : part.substring(0, dash).strip());
        int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).strip());
        if (from < 0 || to < from) {
          throw new NumberFormatException();
        }
        bits.set(from, to + 1);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'%s' is not a CPU list (like 0-3,8): bad part '%s'".formatted(list, part));
      }
    }
    return new CpuSet(bits);
  }

  public int size() {
    return bits.cardinality();
  }

  public boolean isEmpty() {
    return bits.isEmpty();
  }

  public boolean contains(int id) {
    return id >= 0 && bits.get(id);
  }

  public boolean containsAll(CpuSet other) {
    return other.minus(this).isEmpty();
  }

  public IntStream stream() {
    return bits.stream();
  }

  public CpuSet union(CpuSet other) {
    BitSet b = (BitSet) bits.clone();
    b.or(other.bits);
    return new CpuSet(b);
  }

  public CpuSet intersect(CpuSet other) {
    BitSet b = (BitSet) bits.clone();
    b.and(other.bits);
    return new CpuSet(b);
  }

  public CpuSet minus(CpuSet other) {
    BitSet b = (BitSet) bits.clone();
    b.andNot(other.bits);
    return new CpuSet(b);
  }

  public boolean intersects(CpuSet other) {
    return bits.intersects(other.bits);
  }

  /** The kernel list format, ranges collapsed: {@code 0-3,8}. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    int start = bits.nextSetBit(0);
    while (start >= 0) {
      int end = bits.nextClearBit(start) - 1;
      if (!out.isEmpty()) {
        out.append(',');
      }
      out.append(start);
      if (end > start) {
        out.append('-').append(end);
      }
      start = bits.nextSetBit(end + 1);
    }
    return out.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CpuSet other && bits.equals(other.bits);
  }

  @Override
  public int hashCode() {
    return bits.hashCode();
  }
}
