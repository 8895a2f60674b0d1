// Starts mongo-java-server on the given host and port for the test suite: in memory, or in an
// H2 file when a third argument names one (fault tests stop and restart the server).
// Run as a single-file program: java -cp '<lib>/*' MongoLauncher.java 127.0.0.1 27017 [file]
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

public class MongoLauncher {
    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 27017;
        MongoBackend backend = args.length > 2 ? new H2Backend(args[2]) : new MemoryBackend();
        MongoServer server = new MongoServer(backend);
        server.bind(host, port);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        System.out.println("MONGO READY " + host + ":" + port);
        System.out.flush();
        Thread.currentThread().join();
    }
}
