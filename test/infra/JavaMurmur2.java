// Prints Kafka's own murmur2 (org.apache.kafka.common.utils.Utils.murmur2, the signed int the
// Java producer hashes keys with) for each key on stdin, one per line. JavaPartitions gives
// only partitions, which a wrong hash can still hit by chance; this gives the hash itself.
// args[0] says how each line is a key: "utf8" hashes the line's UTF-8 bytes (as a String key
// is serialised), "hex" hashes the bytes the line spells in hex (any bytes, even ones that
// are not UTF-8 or hold a line break).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

public class JavaMurmur2 {
    public static void main(String[] args) throws Exception {
        boolean hex = args[0].equals("hex");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        StringBuilder out = new StringBuilder();
        while ((line = in.readLine()) != null) {
            byte[] bytes = hex ? fromHex(line) : line.getBytes(StandardCharsets.UTF_8);
            out.append(Utils.murmur2(bytes)).append('\n');
        }
        System.out.print(out);
    }

    private static byte[] fromHex(String s) {
        byte[] bytes = new byte[s.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }
}
