package io.leasehold.proxy.quotas;

/** The kinds of client quota the file sets, each under its Kafka config name and the file's key. */
public enum QuotaType {
    /** Bytes a second of produce payload. */
    PRODUCER_BYTE_RATE("producerByteRate", "producer_byte_rate"),
    /** Bytes a second of fetched records. */
    CONSUMER_BYTE_RATE("consumerByteRate", "consumer_byte_rate"),
    /** Percent of one I/O thread's time, as Kafka's request quota (parsed; not enforced by the proxy). */
    REQUEST_PERCENTAGE("requestPercentage", "request_percentage");

    private final String fileKey;
    private final String kafkaName;

    QuotaType(String fileKey, String kafkaName) {
        this.fileKey = fileKey;
        this.kafkaName = kafkaName;
    }

    /** The key in the quotas file, e.g. {@code producerByteRate}. */
    public String fileKey() {
        return fileKey;
    }

    /** Kafka's name of the quota, as DescribeClientQuotas answers it, e.g. {@code producer_byte_rate}. */
    public String kafkaName() {
        return kafkaName;
    }
}
