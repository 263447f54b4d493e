package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The answer to {@code /create}: the pod's UID and the id of the remote job that runs it. */
public record CreateStruct(@JsonProperty("PodUID") String podUid, @JsonProperty("PodJID") String podJid) {}
