package io.crigate.core.config;

/** The keys of the configuration file, shared by the reader and the flags that produce the same tree. */
final class ConfigKeys {

  static final String SOCKET = "socket";
  static final String SOCKET_GROUP = "socketGroup";
  static final String MAX_CALLS_PER_CONNECTION = "maxCallsPerConnection";
  static final String STATE_DIR = "stateDir";
  static final String LOG_LEVEL = "logLevel";
  static final String BACKENDS = "backends";
  static final String DUMP = "dump";

  static final String NAME = "name";
  static final String TYPE = "type";
  static final String HANDLERS = "handlers";
  static final String CALL_TIMEOUT = "callTimeout";
  static final String PROBE_INTERVAL = "probeInterval";
  static final String PROBE_TIMEOUT = "probeTimeout";

  static final String DUMP_RULES = "rules";
  static final String DUMP_FILE = "file";
  static final String DUMP_FORMAT = "format";
  static final String DUMP_REDACT_ENV = "redactEnv";

  /** {@code dump.file} value that selects standard error, so a flag can override a file's path. */
  static final String STDERR = "-";

  private ConfigKeys() {}
}
