package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodRequests;

/** The kubelet's resource-fit admission of a pod on its node. */
final class NodeResourceFit {

  private NodeResourceFit() {}

  /**
   * {@code pkg/kubelet/lifecycle/predicate.go Admit()}: extended resources the node does not
   * advertise are dropped from the pod's requests ({@code removeMissingExtendedResources}), the
   * rest must fit beside the pods already admitted, or the pod fails {@code OutOf<resource>}.
   */
  static void admit(Pod pod, Node node, List<Pod> admitted) throws NotAdmitted {
    NodeBook book = NodeBook.of(List.of(node), admitted).get(node.getMetadata().getName());
    Map<String, BigDecimal> request = new TreeMap<>(PodRequests.of(pod));
    request
        .keySet()
        .removeIf(name -> PodRequests.isExtended(name) && !book.allocatable().containsKey(name));
    Map<String, String> short_ = book.kubeShortfall(request, List.of());
    if (!short_.isEmpty()) {
      String resource = short_.keySet().iterator().next();
      throw new NotAdmitted(
          "OutOf" + resource,
          "Node didn't have enough resource: "
              + resource
              + ", requested: "
              + request.getOrDefault(resource, BigDecimal.ONE).toPlainString()
              + ", used: "
              + book.requested().getOrDefault(resource, BigDecimal.ZERO).toPlainString()
              + ", capacity: "
              + book.allocatable().getOrDefault(resource, BigDecimal.ZERO).toPlainString());
    }
  }
}
