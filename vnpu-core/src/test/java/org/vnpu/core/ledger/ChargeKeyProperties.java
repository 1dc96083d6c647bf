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
    assertThat(ChargeKey.of(uid)).isEqualTo(new ChargeKey.Pod(uid));
  }

  @Test
  void theKindsDoNotShareKeys() {
    assertThat(new ChargeKey.PreemptorPlace("a").ledgerKey())
        .isNotEqualTo(new ChargeKey.Replacement("a").ledgerKey())
        .isNotEqualTo(new ChargeKey.Handout("a").ledgerKey())
        .isNotEqualTo(new ChargeKey.Claim("a").ledgerKey())
        .isNotEqualTo(new ChargeKey.Pod("a").ledgerKey());
  }

  @Provide
  Arbitrary<ChargeKey> charges() {
    Arbitrary<String> ids = Arbitraries.strings().withChars("abcdef0123456789-:").ofMinLength(1);
    Arbitrary<String> uids = Arbitraries.create(() -> UUID.randomUUID().toString());
    return Arbitraries.oneOf(
        uids.map(ChargeKey.Pod::new),
        ids.map(ChargeKey.PreemptorPlace::new),
        ids.map(ChargeKey.Replacement::new),
        ids.map(ChargeKey.Handout::new),
        ids.map(ChargeKey.Claim::new));
  }
}
