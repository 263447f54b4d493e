package io.crigate.scheduler.extender;

import com.fasterxml.jackson.core.io.SerializedString;
import java.util.Arrays;
import java.util.List;

/**
 * The node names kube-scheduler has sent, each kept as one String, found by the characters the
 * JSON parser has decoded. A prioritize call carries every candidate's name (5,000 at most scale);
 * reading each into a new String, and hashing it afresh for every lookup, was most of what a call
 * allocated. Here a name the table has seen costs no allocation, and the String it returns has its
 * hash computed already for the index's and the loads' maps. Jackson canonicalises field names,
 * not values, hence this table.
 *
 * <p>{@link LayerIndex} interns the names of the nodes it indexes here first, so that a request's
 * names resolve to the very Strings the index keys on and its lookups match by identity.
 *
 * <p>Lookups take no lock: names not found are added after the request is read, into free slots
 * or, when the table would pass half full, into a larger copy ({@link #addAll}). A reader that misses
 * a name just added reads it as a new String, which the maps still find by equality. The table is
 * bounded: when node churn fills it, it starts over with the names of the current request.
 *
 * <p>Each name is kept three ways ({@link Name}): the String the maps key on, its characters, which
 * a lookup compares against the parser's in one bulk comparison, and the start of its entry in a
 * prioritize answer, encoded once, which each answer copies instead of writing the entry's field
 * names and encoding the name again.
 */
final class NodeNameTable {

  /** A node name as the extender keeps it: its String, its characters and its prioritize answer's entry. */
  static final class Name {
    private final String string;
    private final char[] chars;
    private final int hash;
    private final SerializedString hostEntry;

    Name(String string) {
      this.string = string;
      this.chars = string.toCharArray();
      this.hash = string.hashCode();
      this.hostEntry = ExtenderJson.hostEntry(string);
    }

    /** The String the index and the loads key on. */
    String string() {
      return string;
    }

    /** The start of this host's entry in a prioritize answer, encoded once ({@link ExtenderJson#hostEntry}). */
    SerializedString hostEntry() {
      return hostEntry;
    }

    private boolean matches(char[] other, int offset, int length) {
      return chars.length == length && Arrays.equals(chars, 0, length, other, offset, offset + length);
    }
  }

  /** Far above the 5,000 nodes a Kubernetes cluster supports; a name is ~100 bytes with its String. */
  static final int MAX_NAMES = 1 << 16;

  /** Open addressing, linear probing, at most half full; null marks a free slot. */
  private volatile Name[] slots = new Name[16];
  private int count;

  /** The name in {@code chars[offset..offset+length)} as the table keeps it, or null when the table has not seen it. */
  Name find(char[] chars, int offset, int length) {
    int hash = 0;
    for (int i = offset; i < offset + length; i++) {
      hash = 31 * hash + chars[i]; // String.hashCode()'s function, so stored names compare by their cached hash
    }
    Name[] table = slots;
    int mask = table.length - 1;
    for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      Name name = table[slot];
      if (name == null) {
        return null;
      }
      if (name.hash == hash && name.matches(chars, offset, length)) {
        return name;
      }
    }
  }

  /** The String the table keeps for {@code name}, which is added first if the table has not seen it. */
  String intern(String name) {
    char[] chars = name.toCharArray();
    Name kept = find(chars, 0, chars.length);
    if (kept != null) {
      return kept.string;
    }
    addAll(List.of(new Name(name)));
    return name;
  }

  /**
   * Adds the names a request brought that {@link #find} did not know; duplicates are fine. Names go
   * into free slots of the published table while it stays at most half full: a reader then sees a
   * slot either still free or holding a whole String, and filling a free slot never cuts another
   * name's probe run. Only growth copies, into a table twice as large, so interning a cluster's
   * nodes one by one (as {@link LayerIndex} does while the informer syncs) costs no copy per name.
   */
  synchronized void addAll(List<Name> names) {
    Name[] table = slots;
    if (count + names.size() > MAX_NAMES) {
      table = new Name[capacity(names.size())];
      count = 0;
    } else if (2 * (count + names.size()) > table.length) {
      Name[] old = table;
      table = new Name[capacity(count + names.size())];
      count = 0;
      for (Name name : old) {
        if (name != null) {
          insert(table, name);
        }
      }
    }
    for (Name name : names) {
      insert(table, name);
    }
    slots = table;
  }

  /** A power of two at least twice {@code names}, so the table stays at most half full. */
  private static int capacity(int names) {
    return Math.max(16, Integer.highestOneBit(2 * names - 1) << 1);
  }

  int size() {
    return count;
  }

  private void insert(Name[] table, Name name) {
    int mask = table.length - 1;
    for (int slot = spread(name.hash) & mask; ; slot = (slot + 1) & mask) {
      if (table[slot] == null) {
        table[slot] = name;
        count++;
        return;
      }
      if (table[slot].string.equals(name.string)) {
        return;
      }
    }
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }
}
