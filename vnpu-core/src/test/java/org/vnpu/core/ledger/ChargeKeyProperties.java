package org.vnpu.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class ChargeKeyProperties {

  @Property
  void everyChargeReadsBackAsItself(@ForAll("charges") ChargeKey charge) {
    assertThat(ChargeKey.of(charge.ledgerKey())).isEqualTo(charge);
  }

  @Test
  void anApiServerUidIsAPod() {
    String uid = UUID.randomUUID().toString();
    assertThat(ChargeKey.of(uid)).isEqualTo(ChargeKey.pod(uid));
  }

  @Test
  void theKindsDoNotShareKeys() {
    assertThat(ChargeKey.preemptorPlace("a").ledgerKey())
        .isNotEqualTo(ChargeKey.replacement("a").ledgerKey())
        .isNotEqualTo(ChargeKey.handout("a").ledgerKey())
        .isNotEqualTo(ChargeKey.claim("a").ledgerKey())
        .isNotEqualTo(ChargeKey.pod("a").ledgerKey());
  }

  @Provide
  Arbitrary<ChargeKey> charges() {
    Arbitrary<String> ids = Arbitraries.strings().withChars("abcdef0123456789-:").ofMinLength(1);
    Arbitrary<String> uids = Arbitraries.create(() -> UUID.randomUUID().toString());
    return Arbitraries.oneOf(
        uids.map(ChargeKey::pod),
        ids.map(ChargeKey::preemptorPlace),
        ids.map(ChargeKey::replacement),
        ids.map(ChargeKey::handout),
        ids.map(ChargeKey::claim));
  }
}
