package io.crigate.scheduler.extender;

import java.util.Map;

/** Nodes that passed, and why each other node failed. */
record FilterResult(CandidateNodes passed, Map<String, String> failed) {}
