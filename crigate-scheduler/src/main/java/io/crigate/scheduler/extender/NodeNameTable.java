package io.crigate.scheduler.extender;

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
 */
final class NodeNameTable {

  /** Far above the 5,000 nodes a Kubernetes cluster supports; a name is ~100 bytes with its String. */
  static final int MAX_NAMES = 1 << 16;

  /** Open addressing, linear probing, at most half full; null marks a free slot. */
  private volatile String[] slots = new String[16];
  private int count;

  /** The String of the name in {@code chars[offset..offset+length)}, or null when the table has not seen it. */
  String find(char[] chars, int offset, int length) {
    int hash = 0;
    for (int i = offset; i < offset + length; i++) {
      hash = 31 * hash + chars[i]; // String.hashCode()'s function, so stored names compare by their cached hash
    }
    String[] table = slots;
    int mask = table.length - 1;
    for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      String name = table[slot];
      if (name == null) {
        return null;
      }
      if (name.hashCode() == hash && matches(name, chars, offset, length)) {
        return name;
      }
    }
  }

  /** The String the table keeps for {@code name}, which is added first if the table has not seen it. */
  String intern(String name) {
    char[] chars = name.toCharArray();
    String kept = find(chars, 0, chars.length);
    if (kept != null) {
      return kept;
    }
    addAll(List.of(name));
    return name;
  }

  /**
   * Adds the names a request brought that {@link #find} did not know; duplicates are fine. Names go
   * into free slots of the published table while it stays at most half full: a reader then sees a
   * slot either still free or holding a whole String, and filling a free slot never cuts another
   * name's probe run. Only growth copies, into a table twice as large, so interning a cluster's
   * nodes one by one (as {@link LayerIndex} does while the informer syncs) costs no copy per name.
   */
  synchronized void addAll(List<String> names) {
    String[] table = slots;
    if (count + names.size() > MAX_NAMES) {
      table = new String[capacity(names.size())];
      count = 0;
    } else if (2 * (count + names.size()) > table.length) {
      String[] old = table;
      table = new String[capacity(count + names.size())];
      count = 0;
      for (String name : old) {
        if (name != null) {
          insert(table, name);
        }
      }
    }
    for (String name : names) {
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

  private void insert(String[] table, String name) {
    int mask = table.length - 1;
    for (int slot = spread(name.hashCode()) & mask; ; slot = (slot + 1) & mask) {
      if (table[slot] == null) {
        table[slot] = name;
        count++;
        return;
      }
      if (table[slot].equals(name)) {
        return;
      }
    }
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }

  private static boolean matches(String name, char[] chars, int offset, int length) {
    if (name.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (name.charAt(i) != chars[offset + i]) {
        return false;
      }
    }
    return true;
  }
}
