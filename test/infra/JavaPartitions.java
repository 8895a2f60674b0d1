// Prints Kafka's own partition choice (murmur2, as the Java producer computes it) for each
// key given on stdin, one "<partition>" per line, for a partition count in args[0].
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

public class JavaPartitions {
    public static void main(String[] args) throws Exception {
        int partitions = Integer.parseInt(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        StringBuilder out = new StringBuilder();
        while ((line = in.readLine()) != null) {
            out.append(Utils.toPositive(Utils.murmur2(line.getBytes(StandardCharsets.UTF_8))) % partitions).append('\n');
        }
        System.out.print(out);
    }
}
