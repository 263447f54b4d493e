package io.crigate.spi.adjust;

/** Builds one kind of plugin (a policy, the hook engine); the CLI keeps one explicit map of them. */
public interface AdjustmentPluginFactory {

  /** The name that selects this factory in configuration, e.g. {@code static}. */
  String type();

  /** A one-line description, listed by {@code crigate policies}. */
  String description();

  /** @throws io.crigate.spi.CrigateException.InvalidArgument naming the field of bad settings */
  AdjustmentPlugin create(PluginInitContext context);
}
