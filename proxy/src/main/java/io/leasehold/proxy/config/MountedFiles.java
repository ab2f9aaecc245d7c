package io.leasehold.proxy.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the files that config keys point at (secrets mounted from a Kubernetes Secret): one-line
 * secrets, PEM certificates and unencrypted PEM private keys in each form Kubernetes tools write
 * them: PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}, cert-manager's
 * default) and SEC1 ({@code BEGIN EC PRIVATE KEY}). The Kafka listener, the broker connections and
 * the etcd client all read their material through this class, so a file is checked the same way
 * whichever key names it.
 *
 * <p>Like {@link ConfigReader} it never stops at the first problem: each is recorded with the
 * config source, the key and the file, and {@code null} returned; {@link #throwIfProblems()}
 * then reports them all at once. A {@code null} path means the key is not set and is no problem.
 */
final class MountedFiles {

    private static final Pattern PEM_BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");
    /** A PKCS#8 key names its algorithm by OID, but the JDK's KeyFactory wants a name: these are tried in turn. */
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "EdDSA", "RSASSA-PSS", "DSA");
    private static final byte[] PAIR_PROBE = "leasehold key pair check".getBytes(StandardCharsets.US_ASCII);

    private final String sourceName;
    private final List<String> problems = new ArrayList<>();

    /** @param sourceName the config file's name, used in error messages */
    MountedFiles(String sourceName) {
        this.sourceName = sourceName;
    }

    /** A certificate chain and the private key of its first certificate. */
    record Identity(List<X509Certificate> chain, PrivateKey key) {
        Identity {
            chain = List.copyOf(chain);
        }
    }

    /** A one-line secret such as a password; the trailing newline Secrets created from files often carry is dropped. */
    String secret(String key, Path file) {
        byte[] bytes = read(key, file);
        if (bytes == null) {
            return null;
        }
        String value = new String(bytes, StandardCharsets.UTF_8).strip();
        if (value.isEmpty()) {
            problem(key, file + " is empty");
            return null;
        }
        return value;
    }

    /** Every certificate of a PEM file (CA certificates, or a chain with the leaf first). */
    List<X509Certificate> certificates(String key, Path file) {
        byte[] bytes = read(key, file);
        if (bytes == null) {
            return null;
        }
        List<byte[]> blocks = pemBlocks(bytes, "CERTIFICATE");
        if (blocks.isEmpty()) {
            problem(key, file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
            return null;
        }
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (byte[] der : blocks) {
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (CertificateException e) {
            problem(key, file + " holds a certificate that cannot be parsed: " + e.getMessage());
            return null;
        }
        return certificates;
    }

    /**
     * A certificate chain and its private key from two files; also checks that the key belongs to
     * the first certificate, which TLS libraries only find out in the first handshake.
     */
    Identity identity(String certKey, Path certFile, String keyKey, Path keyFile) {
        List<X509Certificate> chain = certificates(certKey, certFile);
        PrivateKey key = privateKey(keyKey, keyFile);
        if (chain == null || key == null) {
            return null;
        }
        if (!belongTogether(chain.get(0), key)) {
            problem(keyKey, keyFile + " is not the private key of the certificate in " + certKey + " (" + certFile + ")");
            return null;
        }
        return new Identity(chain, key);
    }

    /** Throws one exception listing every problem recorded so far, if any. */
    void throwIfProblems() throws ConfigException {
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    private PrivateKey privateKey(String key, Path file) {
        byte[] bytes = read(key, file);
        if (bytes == null) {
            return null;
        }
        List<Object> keys = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(new String(bytes, StandardCharsets.US_ASCII)))) {
            for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
                if (item instanceof PrivateKeyInfo || item instanceof PEMKeyPair
                        || item instanceof PKCS8EncryptedPrivateKeyInfo || item instanceof PEMEncryptedKeyPair) {
                    keys.add(item);
                }
            }
        } catch (IOException | RuntimeException e) {
            problem(key, file + " holds a PEM block that cannot be parsed: " + e.getMessage());
            return null;
        }
        if (keys.size() != 1) {
            problem(key, file + (keys.isEmpty() ? " holds no PEM private key (-----BEGIN PRIVATE KEY-----, "
                    + "RSA PRIVATE KEY or EC PRIVATE KEY)" : " holds " + keys.size() + " private keys, expected one"));
            return null;
        }
        Object found = keys.get(0);
        if (found instanceof PKCS8EncryptedPrivateKeyInfo || found instanceof PEMEncryptedKeyPair) {
            problem(key, file + " holds an encrypted key; the proxy reads unencrypted keys (protect the file instead, "
                    + "e.g. a Secret mounted read-only)");
            return null;
        }
        // PKCS#1 (RSA PRIVATE KEY) and SEC1 (EC PRIVATE KEY) come as key pairs that carry their
        // PKCS#8 form, so every form reaches the JDK the same way.
        PrivateKeyInfo info = found instanceof PEMKeyPair pair ? pair.getPrivateKeyInfo() : (PrivateKeyInfo) found;
        PKCS8EncodedKeySpec spec;
        try {
            spec = new PKCS8EncodedKeySpec(info.getEncoded());
        } catch (IOException e) {
            problem(key, file + " holds a private key that cannot be encoded: " + e.getMessage());
            return null;
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisAlgorithm) {
                // Try the next algorithm; PKCS#8 does not let the JDK pick one for us.
            }
        }
        problem(key, file + " holds a private key of an algorithm other than " + String.join(", ", KEY_ALGORITHMS));
        return null;
    }

    private static boolean belongTogether(X509Certificate certificate, PrivateKey key) {
        String signatureAlgorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            case "DSA" -> "SHA256withDSA";
            // No generic signature scheme to probe with (RSASSA-PSS needs parameters): the handshake will tell.
            default -> null;
        };
        if (signatureAlgorithm == null) {
            return true;
        }
        try {
            Signature signer = Signature.getInstance(signatureAlgorithm);
            signer.initSign(key);
            signer.update(PAIR_PROBE);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(signatureAlgorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(PAIR_PROBE);
            return verifier.verify(signature);
        } catch (GeneralSecurityException differentAlgorithms) {
            return false;
        }
    }

    private static List<byte[]> pemBlocks(byte[] bytes, String label) {
        List<byte[]> blocks = new ArrayList<>();
        Matcher block = PEM_BLOCK.matcher(new String(bytes, StandardCharsets.US_ASCII));
        while (block.find()) {
            if (block.group(1).equals(label)) {
                try {
                    blocks.add(Base64.getMimeDecoder().decode(block.group(2)));
                } catch (IllegalArgumentException badBase64) {
                    // A damaged block is no block of this kind; the caller says what it expected.
                }
            }
        }
        return blocks;
    }

    private byte[] read(String key, Path file) {
        if (file == null) {
            return null;
        }
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            problem(key, "cannot read " + file + ": no such file");
        } catch (AccessDeniedException e) {
            problem(key, "cannot read " + file + ": permission denied");
        } catch (IOException e) {
            problem(key, "cannot read " + file + ": " + e);
        }
        return null;
    }

    private void problem(String key, String message) {
        problems.add(sourceName + ": " + key + ": " + message);
    }
}
