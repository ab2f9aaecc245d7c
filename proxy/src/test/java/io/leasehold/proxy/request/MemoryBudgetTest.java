package io.leasehold.proxy.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryBudgetTest {
    private final MemoryBudget budget = new MemoryBudget(1000);
    private final List<Boolean> changes = new ArrayList<>();

    MemoryBudgetTest() {
        budget.addListener(changes::add);
    }

    @Test
    void isExhaustedAtTheLimitAndAvailableAgainOnlyBelowThreeQuartersOfIt() {
        budget.charge(999);
        assertThat(budget.exhausted()).isFalse();
        budget.charge(1);
        assertThat(budget.exhausted()).isTrue();
        budget.charge(500);
        assertThat(changes).as("told once").containsExactly(true);

        budget.release(700);
        assertThat(budget.used()).isEqualTo(800);
        assertThat(budget.exhausted()).as("800 of 1000: still above the low-water mark").isTrue();
        budget.release(51);
        assertThat(budget.exhausted()).as("749 < 750").isFalse();
        assertThat(changes).containsExactly(true, false);
        assertThat(budget.pauses()).isEqualTo(1);

        budget.charge(251);
        assertThat(budget.exhausted()).isTrue();
        assertThat(budget.pauses()).isEqualTo(2);
    }

    @Test
    void givingBytesBackNeverExhaustsAndTakingMoreNeverResumes() {
        budget.charge(2000);
        budget.release(1500);
        assertThat(budget.exhausted()).isFalse();
        budget.charge(100);
        assertThat(budget.exhausted()).as("600 is below the limit").isFalse();
        assertThat(changes).containsExactly(true, false);
    }

    @Test
    void defaultsToHalfTheDirectMemoryLimit() {
        assertThat(MemoryBudget.defaultLimit(512L << 20)).isEqualTo(256L << 20);
    }

    @Test
    void refusesANonPositiveLimit() {
        assertThatThrownBy(() -> new MemoryBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
    }
}
