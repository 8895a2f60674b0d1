// Starts mongo-java-server (in-memory backend) on the given host and port for the test suite.
// Run as a single-file program: java -cp '<lib>/*' MongoLauncher.java 127.0.0.1 27017
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

public class MongoLauncher {
    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 27017;
        MongoServer server = new MongoServer(new MemoryBackend());
        server.bind(host, port);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        System.out.println("MONGO READY " + host + ":" + port);
        System.out.flush();
        Thread.currentThread().join();
    }
}
