package io.leasehold.proxy.security;

import java.util.List;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

/** Reads a JSON Web Key Set (RFC 7517) with jose4j, keeping the public signature keys. */
final class JwksDocument {
    private JwksDocument() {
    }

    /**
     * The public keys of the key set in {@code json}.
     *
     * @param source where the text came from, for the error message
     * @throws JwksException when it is not a key set or holds no public key
     */
    static List<JsonWebKey> parse(String json, String source) throws JwksException {
        List<JsonWebKey> keys;
        try {
            keys = new JsonWebKeySet(json).getJsonWebKeys();
        } catch (JoseException | RuntimeException e) {
            throw new JwksException(source + ": not a JSON Web Key Set ({\"keys\": [...]}): " + e.getMessage());
        }
        List<JsonWebKey> usable = keys.stream().filter(key -> key instanceof PublicJsonWebKey)
                .filter(key -> key.getUse() == null || key.getUse().equals("sig")).toList();
        if (usable.isEmpty()) {
            throw new JwksException(source + ": the key set has no public signature key (RSA or EC with "
                    + "\"use\": \"sig\" or no \"use\")");
        }
        return usable;
    }
}
