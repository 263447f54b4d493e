package io.crigate.scheduler.extender;

import io.crigate.images.NodeLayerInventory;
import java.util.Map;

/** The layer inventories the cluster's nodes publish, by node name; a current snapshot. */
public interface InventorySource {

  Map<String, NodeLayerInventory> inventories();
}
