package io.crigate.hooks;

/**
 * A hook with its place in the chain: lower {@code order} runs first, and a later hook's value
 * wins where two set the same field.
 */
public record HookRegistration(Hook hook, int order, FailurePolicy failurePolicy) {}
