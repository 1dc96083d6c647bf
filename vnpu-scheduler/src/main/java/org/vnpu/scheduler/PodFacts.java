package org.vnpu.scheduler;

import java.time.Instant;

/**
 * What a preemption weighs of a pod it may evict.
 *
 * @param priority its {@code spec.priority} (0 without one)
 * @param started when it started; when it was first seen, before it has
 * @param owner the UID of its controlling owner (a ReplicaSet, a Job, ...); null without one
 */
record PodFacts(int priority, Instant started, String owner) {}
