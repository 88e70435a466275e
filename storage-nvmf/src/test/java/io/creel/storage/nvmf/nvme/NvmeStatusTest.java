package io.creel.storage.nvmf.nvme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NvmeStatusTest {
    @Test
    void theStatusHalfwordSplitsIntoTypeCodeRetryDelayMoreAndDoNotRetry() {
        // SC 0x80, SCT 0, DNR: field 0x4080, shifted past the phase bit
        NvmeStatus s = NvmeStatus.fromCqeHalfword(0x4080 << 1 | 1);
        assertEquals(0, s.sct());
        assertEquals(0x80, s.sc());
        assertTrue(s.doNotRetry());
        assertFalse(s.more());
        assertEquals("LBA Out of Range", s.name());
        assertEquals("LBA Out of Range (SCT 0x0, SC 0x80, do not retry)", s.toString());
        NvmeStatus c = NvmeStatus.fromCqeHalfword((1 << 8 | 0x84 | 2 << 11 | 1 << 13) << 1);
        assertEquals(1, c.sct());
        assertEquals(2, c.crd());
        assertTrue(c.more());
        assertEquals("Connect Invalid Host", c.name());
    }

    @Test
    void encodingAndDecodingAreInverse() {
        for (int field = 0; field < 1 << 15; field += 7) {
            int halfword = field << 1;
            assertEquals(halfword, NvmeStatus.fromCqeHalfword(halfword).toCqeHalfword());
        }
    }

    @Test
    void onlyTypeZeroCodeZeroIsSuccessWhateverThePhaseAndRetryBits() {
        assertTrue(NvmeStatus.isSuccess(0));
        assertTrue(NvmeStatus.isSuccess(1));
        assertTrue(NvmeStatus.isSuccess(1 << 15), "DNR alone does not make a failure");
        assertFalse(NvmeStatus.isSuccess(2));
        assertFalse(NvmeStatus.isSuccess(1 << 9));
    }

    @Test
    void everyTypeHasNamesAndUnknownCodesStillSaySomething() {
        assertEquals("Unrecovered Read Error", new NvmeStatus(2, 0x81, 0, false, false).name());
        assertEquals("Asymmetric Access Inaccessible", new NvmeStatus(3, 0x02, 0, false, false).name());
        assertEquals("Transient Transport Error", new NvmeStatus(0, 0x22, 0, false, false).name());
        assertEquals("Unknown status (SCT 0x0, SC 0x7e)", new NvmeStatus(0, 0x7E, 0, false, false).name());
        assertEquals("Unknown status (SCT 0x5, SC 0x01)", new NvmeStatus(5, 1, 0, false, false).name());
    }
}
