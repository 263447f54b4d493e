package io.crigate.scheduler.extender;

/**
 * Node name to the node's number in {@link LayerIndex}'s bit sets. A prioritize call looks up every
 * candidate (5,000 at most scale); in a {@code HashMap<String, Integer>} each lookup chased a
 * table entry, a map node, the stored key's characters and an {@code Integer}, cache misses that
 * were a third of the call. Here the hashes, keys and numbers sit in three parallel arrays (open
 * addressing, linear probing, at most half full): a lookup compares hashes in one array and the
 * key by identity first, which is the common case because {@link NodeNameTable} hands out the
 * String the informer's name was interned as ({@link LayerIndex#put}).
 *
 * <p>Not thread-safe: {@link LayerIndex} guards it with its lock.
 */
final class NodeNumbers {

  private static final int ABSENT = -1;

  private int[] hashes = new int[16];
  private String[] keys = new String[16];
  private int[] numbers = new int[16];
  private int count;

  /** The node's number, or -1 when it has none. */
  int get(String name) {
    int hash = name.hashCode();
    int mask = keys.length - 1;
    for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      String key = keys[slot];
      if (key == null) {
        return ABSENT;
      }
      if (hashes[slot] == hash && (key == name || key.equals(name))) {
        return numbers[slot];
      }
    }
  }

  void put(String name, int number) {
    if (2 * (count + 1) > keys.length) {
      grow();
    }
    int hash = name.hashCode();
    int mask = keys.length - 1;
    for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      if (keys[slot] == null) {
        hashes[slot] = hash;
        keys[slot] = name;
        numbers[slot] = number;
        count++;
        return;
      }
      if (hashes[slot] == hash && keys[slot].equals(name)) {
        numbers[slot] = number;
        return;
      }
    }
  }

  /** Removes the name; the entries probed after it move back so that no lookup stops short (no tombstones). */
  void remove(String name) {
    int hash = name.hashCode();
    int mask = keys.length - 1;
    int slot = spread(hash) & mask;
    while (keys[slot] != null && !(hashes[slot] == hash && keys[slot].equals(name))) {
      slot = (slot + 1) & mask;
    }
    if (keys[slot] == null) {
      return;
    }
    count--;
    int hole = slot;
    for (int next = (hole + 1) & mask; keys[next] != null; next = (next + 1) & mask) {
      int home = spread(hashes[next]) & mask;
      // the entry at next may fill the hole only if its home slot is not between the hole and it
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        hashes[hole] = hashes[next];
        keys[hole] = keys[next];
        numbers[hole] = numbers[next];
        hole = next;
      }
    }
    keys[hole] = null;
  }

  int size() {
    return count;
  }

  private void grow() {
    String[] oldKeys = keys;
    int[] oldNumbers = numbers;
    hashes = new int[2 * oldKeys.length];
    keys = new String[2 * oldKeys.length];
    numbers = new int[2 * oldKeys.length];
    count = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != null) {
        put(oldKeys[i], oldNumbers[i]);
      }
    }
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }
}
