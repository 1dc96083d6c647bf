package org.vnpu.api.signing;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which verifying keys a rotation may retire: every published key that signs nothing still running
 * and is not the key signing now. Keeping every old key forever would make a rotation after a leak
 * revoke nothing (issue 48); retiring one still in use would refuse the running pods it signed at
 * their next hand-out.
 */
public final class KeyRetirement {

  private KeyRetirement() {}

  /**
   * @param published the key IDs nodes verify with
   * @param signing the key ID the scheduler signs with now
   * @param inUse the key IDs of allocations on pods that have not ended
   */
  public static Set<String> retirable(
      Collection<String> published, String signing, Collection<String> inUse) {
    Set<String> retired = new TreeSet<>(published);
    retired.remove(signing);
    retired.removeAll(inUse);
    return retired;
  }
}
