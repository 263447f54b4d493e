package io.crigate.nri;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges the answers of several plugins into one, in the order the plugins were called, and
 * refuses the merge when two plugins set the same field, naming both, as NRI's runtime does.
 * Works on the messages' descriptors, so a field the API gains is merged without new code.
 */
final class AdjustmentMerge {

  /** Elements of these lists are identified by one of their fields: two plugins may add different ones. */
  private static final Map<String, String> LIST_KEYS = Map.of(
      "KeyValue", "key", "Mount", "destination", "POSIXRlimit", "type", "CDIDevice", "name",
      "LinuxDevice", "path", "LinuxNamespace", "type", "HugepageLimit", "page_size");
  /** Messages set as one value (an Optional* wrapper or a setting that only makes sense whole). */
  private static final Set<String> WHOLE = Set.of("LinuxScheduler", "LinuxIOPriority", "LinuxSeccomp", "LinuxRdt",
      "LinuxMemoryPolicy", "LinuxPids", "SecurityProfile", "OptionalInt", "OptionalInt32", "OptionalInt64",
      "OptionalUInt32", "OptionalUInt64", "OptionalBool", "OptionalString", "OptionalFileMode",
      "OptionalRepeatedString", "LinuxNetDevice");

  private final Map<String, String> owners = new HashMap<>();
  private final ContainerAdjustment.Builder adjustment = ContainerAdjustment.newBuilder();
  private final Map<String, ContainerUpdate.Builder> updates = new LinkedHashMap<>();

  void adjust(String plugin, ContainerAdjustment from) {
    merge(adjustment, from, "adjust", plugin);
  }

  void update(String plugin, List<ContainerUpdate> from) {
    for (ContainerUpdate u : from) {
      ContainerUpdate.Builder into = updates.computeIfAbsent(u.getContainerId(),
          id -> ContainerUpdate.newBuilder().setContainerId(id));
      merge(into, u, "update[" + u.getContainerId() + "]", plugin);
    }
  }

  ContainerAdjustment adjustment() {
    return adjustment.build();
  }

  List<ContainerUpdate> updates() {
    return updates.values().stream().map(ContainerUpdate.Builder::build).toList();
  }

  /** Which plugin set each field path, e.g. {@code adjust.env[FOO]} or {@code adjust.linux.resources.cpu.quota}. */
  Map<String, String> owners() {
    return Map.copyOf(owners);
  }

  private void merge(Message.Builder into, Message from, String path, String plugin) {
    for (Map.Entry<FieldDescriptor, Object> e : from.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      String p = path + "." + f.getName();
      if (f.getName().equals("container_id")) {
        continue;
      }
      if (f.isMapField()) {
        for (Object entry : (List<?>) e.getValue()) {
          Message m = (Message) entry;
          claim(p + "[" + m.getField(m.getDescriptorForType().findFieldByName("key")) + "]", plugin);
          into.addRepeatedField(f, entry);
        }
      } else if (f.isRepeated()) {
        mergeList(into, f, (List<?>) e.getValue(), p, plugin);
      } else if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !WHOLE.contains(f.getMessageType().getName())) {
        merge(into.getFieldBuilder(f), (Message) e.getValue(), p, plugin);
      } else {
        claim(p, plugin);
        into.setField(f, e.getValue());
      }
    }
  }

  private void mergeList(Message.Builder into, FieldDescriptor f, List<?> values, String p, String plugin) {
    if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      claim(p, plugin); // a list of strings (args) replaces the container's as a whole
      into.clearField(f);
      values.forEach(v -> into.addRepeatedField(f, v));
      return;
    }
    String keyField = LIST_KEYS.get(f.getMessageType().getName());
    for (Object v : values) {
      if (keyField == null) {
        into.addRepeatedField(f, v); // hooks, device rules: every plugin's are kept
        continue;
      }
      FieldDescriptor k = f.getMessageType().findFieldByName(keyField);
      Object key = ((Message) v).getField(k);
      claim(p + "[" + key + "]", plugin);
      into.addRepeatedField(f, v);
    }
  }

  private void claim(String path, String plugin) {
    String previous = owners.putIfAbsent(path, plugin);
    if (previous != null && !previous.equals(plugin)) {
      throw new CrigateException.FailedPrecondition(
          "NRI plugins %s and %s both adjust %s".formatted(previous, plugin, path));
    }
  }
}
