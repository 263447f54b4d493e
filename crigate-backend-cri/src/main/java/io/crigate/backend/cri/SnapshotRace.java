package io.crigate.backend.cri;

import io.grpc.Status;

/**
 * Recognizes a pull that containerd 1.6 lost to its own snapshot collector. The unpacker finds a
 * layer's snapshot already there (shared with another image), the collector deletes it a moment
 * later because that other image was just removed, and preparing the next layer on top of it fails
 * NOT_FOUND: {@code failed to prepare extraction snapshot "...": parent snapshot sha256:... does
 * not exist: not found}. Seen in the whole-chain experiment when image GC on a node removed an image
 * while a pull of another image with a common base unpacked (containerd/containerd#2382 and #10764
 * describe the same failure). Nothing is wrong with the image: pulled again, it unpacks.
 */
final class SnapshotRace {

  private SnapshotRace() {}

  static boolean lostParent(Status status) {
    String description = status.getDescription();
    return status.getCode() == Status.Code.NOT_FOUND && description != null
        && description.contains("failed to prepare extraction snapshot") && description.contains("parent snapshot");
  }
}
