package org.vnpu.api.payload;

/**
 * A pod by UID, with its namespace and name for humans and logs.
 *
 * @param uid the pod's UID
 * @param namespace its namespace
 * @param name its name
 */
public record PodRef(String uid, String namespace, String name) {

  public PodRef {
    Checks.text(uid, "uid");
    Checks.text(namespace, "namespace");
    Checks.text(name, "name");
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
