package io.crigate.scheduler.extender;

import io.crigate.scheduler.NodeLoad;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The nodes the extender knows, by name, each as one {@link Entry} that holds everything a
 * prioritize call reads about a candidate: its number in {@link LayerIndex}'s bit sets, its load
 * ({@link NodeLoads}) and the start of its answer entry. A call carries every candidate's name
 * (5,000 at most scale) and finds each with one probe, by the characters the JSON parser has
 * decoded; before, a candidate cost a lookup here, one in the index's numbers and one in the
 * loads' map, each a few cache misses on its own, and they were most of a call.
 *
 * <p>One table is shared by the index and the loads of one extender (they are built on it), and
 * each writes only its own fields of an entry, through {@link #update}.
 *
 * <p>Lookups take no lock: names a request brought that the table did not know are added after the
 * request is read, into free slots or, when the table would pass half full, into a larger copy
 * ({@link #addAll}). A reader that misses a name just added reads it as a new entry that knows
 * nothing about the node, which scores it as it would a node without an inventory or a load, for
 * that call. The table is bounded: when names that no informer knows fill it, it starts over with
 * the entries that hold something and the names of the current request.
 */
public final class NodeTable {

  /**
   * A node as the extender keeps it. The name's String, characters, hash and answer entry never
   * change; the rest is written by the table's owners, each under the table's lock ({@link #update}).
   */
  static final class Entry {
    private final String string;
    private final char[] chars;
    private final int hash;
    private final byte[] hostEntry;
    /**
     * Its number in {@link LayerIndex}'s bit sets, -1 while it publishes no inventory. A call reads
     * it with the load, outside the index's lock: a number read just before its node was removed
     * and the number given to another node scores a node that is gone, which no answer can use.
     */
    volatile int number = -1;
    /** What {@link NodeLoadInformer} counted on it; {@link NodeLoad#UNKNOWN} until then. */
    volatile NodeLoad load = NodeLoad.UNKNOWN;
    /** What the pods the extender scored and expects here add until their binding is seen ({@link NodeLoads#assume}); null for none. */
    volatile NodeLoads.Extra assumed;

    Entry(String string) {
      this.string = string;
      this.chars = string.toCharArray();
      this.hash = string.hashCode();
      this.hostEntry = ExtenderJson.hostEntry(string);
    }

    /** The node's name, the one String the table keeps for it. */
    String string() {
      return string;
    }

    /** The start of this host's entry in a prioritize answer, encoded once ({@link ExtenderJson#hostEntry}); not to be changed. */
    byte[] hostEntry() {
      return hostEntry;
    }

    /** Whether an owner has written something a table that starts over must not lose. */
    private boolean holdsState() {
      return number >= 0 || assumed != null || !load.equals(NodeLoad.UNKNOWN);
    }

    private boolean matches(char[] other, int offset, int length) {
      return chars.length == length && Arrays.equals(chars, 0, length, other, offset, offset + length);
    }
  }

  /** Far above the 5,000 nodes a Kubernetes cluster supports; an entry is ~150 bytes with its String. */
  static final int MAX_NAMES = 1 << 16;

  /** 31 to the powers {@link #hash} multiplies by, wrapping as int arithmetic does (compile-time constants). */
  private static final int P2 = 31 * 31;
  private static final int P3 = P2 * 31;
  private static final int P4 = P3 * 31;
  private static final int P5 = P4 * 31;
  private static final int P6 = P5 * 31;
  private static final int P7 = P6 * 31;
  private static final int P8 = P7 * 31;

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

  /** Open addressing, linear probing, at most half full; null marks a free slot. */
  private volatile Entry[] slots = new Entry[16];
  private int count;

  /** The entry of the name in {@code chars[offset..offset+length)}, or null when the table has not seen it. */
  Entry find(char[] chars, int offset, int length) {
    int hash = hash(chars, offset, length);
    Entry[] table = slots;
    int mask = table.length - 1;
    for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      Entry entry = (Entry) SLOT.getAcquire(table, slot);
      if (entry == null) {
        return null;
      }
      if (entry.hash == hash && entry.matches(chars, offset, length)) {
        return entry;
      }
    }
  }

  /**
   * {@link String#hashCode()} of the characters, so that a String finds its entry by its cached hash.
   * Eight characters a step, each times its power of 31: the plain loop's one multiply-add a character
   * is a chain each step waits on, and at names of ~40 characters that chain was half of a lookup.
   */
  static int hash(char[] chars, int offset, int length) {
    int hash = 0;
    int i = offset;
    int end = offset + length;
    for (; i + 8 <= end; i += 8) {
      hash = P8 * hash + P7 * chars[i] + P6 * chars[i + 1] + P5 * chars[i + 2] + P4 * chars[i + 3]
          + P3 * chars[i + 4] + P2 * chars[i + 5] + 31 * chars[i + 6] + chars[i + 7];
    }
    for (; i < end; i++) {
      hash = 31 * hash + chars[i];
    }
    return hash;
  }

  /** The entry of {@code name}, or null when the table has not seen it (off the prioritize path: it copies the characters). */
  Entry find(String name) {
    return find(name.toCharArray(), 0, name.length());
  }

  /** The entry of {@code name}, or, when the table has not seen it, one of its own that knows nothing about the node (not added). */
  Entry resolve(String name) {
    Entry entry = find(name);
    return entry != null ? entry : new Entry(name);
  }

  /**
   * Runs {@code write} on the entry of {@code name}, added first if the table has not seen it, under
   * the table's lock: how the index and the loads change what they keep in an entry, so that a table
   * that starts over ({@link #addAll}) sees each write whole and keeps the entry.
   */
  synchronized Entry update(String name, Consumer<Entry> write) {
    Entry entry = find(name);
    if (entry == null) {
      entry = new Entry(name);
      addAll(List.of(entry));
    }
    write.accept(entry);
    return entry;
  }

  /**
   * Adds the entries of names a request brought that {@link #find} did not know; duplicates are
   * fine. Entries go into free slots of the published table while it stays at most half full: a
   * reader then sees a slot either still free or holding a whole entry, and filling a free slot never
   * cuts another entry's probe run. Only growth copies, into a table twice as large, so adding a
   * cluster's nodes one by one (as the informers do while they sync) costs no copy per name.
   */
  synchronized void addAll(List<Entry> entries) {
    Entry[] table = slots;
    if (count + entries.size() > MAX_NAMES) {
      table = copy(table, false, entries.size());
    } else if (2 * (count + entries.size()) > table.length) {
      table = copy(table, true, entries.size());
    }
    for (Entry entry : entries) {
      insert(table, entry);
    }
    slots = table;
  }

  /** A new table with room for {@code adding} more: all of {@code old}'s entries, or only those that hold something. */
  private Entry[] copy(Entry[] old, boolean all, int adding) {
    List<Entry> kept = Arrays.stream(old).filter(entry -> entry != null && (all || entry.holdsState())).toList();
    Entry[] table = new Entry[capacity(kept.size() + adding)];
    count = 0;
    kept.forEach(entry -> insert(table, entry));
    return table;
  }

  /** A power of two at least twice {@code names}, so the table stays at most half full. */
  private static int capacity(int names) {
    return Math.max(16, Integer.highestOneBit(2 * names - 1) << 1);
  }

  int size() {
    return count;
  }

  private void insert(Entry[] table, Entry entry) {
    int mask = table.length - 1;
    for (int slot = spread(entry.hash) & mask; ; slot = (slot + 1) & mask) {
      if (table[slot] == null) {
        SLOT.setRelease(table, slot, entry); // a reader that finds it sees it whole, its number's -1 and its load too
        count++;
        return;
      }
      if (table[slot].string.equals(entry.string)) {
        return;
      }
    }
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }
}
