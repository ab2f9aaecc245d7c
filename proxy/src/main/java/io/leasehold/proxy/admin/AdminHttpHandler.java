package io.leasehold.proxy.admin;

import io.leasehold.routing.watch.RoutingTable;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

import static io.netty.handler.codec.http.HttpVersion.HTTP_1_1;

/**
 * Answers the admin endpoints; stateless, so one instance serves every connection. The probes
 * are answered on the event loop; the metrics scrape and {@code /routes} go to {@code renderer}.
 */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON = "application/json";
    /** Set once a connection's rendered response is under way; requests pipelined after it go unanswered. */
    private static final AttributeKey<Boolean> RENDERING = AttributeKey.valueOf("leasehold.admin.rendering");

    private final HealthProbe health;
    private final RoutingTable routes;
    private final PrometheusMeterRegistry registry;
    private final Executor renderer;
    private final RoutesJson routesJson = new RoutesJson();

    /** @param routes the table {@code /routes} shows, or {@code null} when {@code /routes} is off */
    AdminHttpHandler(HealthProbe health, RoutingTable routes, PrometheusMeterRegistry registry, Executor renderer) {
        this.health = health;
        this.routes = routes;
        this.registry = registry;
        this.renderer = renderer;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (ctx.channel().hasAttr(RENDERING)) {
            return;
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        String path = new QueryStringDecoder(request.uri()).path();
        if (request.decoderResult().isSuccess() && isGetOrHead(request) && isRendered(path)) {
            // Answered in order only because nothing more is read: the connection closes after it.
            ctx.channel().attr(RENDERING).set(Boolean.TRUE);
            ctx.channel().config().setAutoRead(false);
            renderer.execute(() -> send(ctx, rendered(path), head, false));
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
        send(ctx, respond(request, path), head, keepAlive);
    }

    private static void send(ChannelHandlerContext ctx, FullHttpResponse response, boolean head, boolean keepAlive) {
        HttpUtil.setContentLength(response, response.content().readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        response.headers().set("X-Content-Type-Options", "nosniff");
        if (head) {
            response.content().clear();
        }
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private boolean isRendered(String path) {
        return path.equals("/metrics") || (routes != null && path.equals("/routes"));
    }

    private static boolean isGetOrHead(FullHttpRequest request) {
        return request.method().equals(HttpMethod.GET) || request.method().equals(HttpMethod.HEAD);
    }

    /** Runs on the renderer thread. */
    private FullHttpResponse rendered(String path) {
        try {
            return path.equals("/metrics")
                    ? body(HttpResponseStatus.OK, PROMETHEUS_TEXT, registry.scrape().getBytes(StandardCharsets.UTF_8))
                    : body(HttpResponseStatus.OK, JSON, routesJson.render(routes));
        } catch (RuntimeException e) {
            log.warn("admin endpoint {} failed", path, e);
            return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, path + " failed: " + e + "\n");
        }
    }

    private FullHttpResponse respond(FullHttpRequest request, String path) {
        if (!request.decoderResult().isSuccess()) {
            return text(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request\n");
        }
        if (!isGetOrHead(request)) {
            FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET and HEAD\n");
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            return response;
        }
        return switch (path) {
            case "/healthz" -> health.isLive()
                    ? text(HttpResponseStatus.OK, "live\n")
                    : text(HttpResponseStatus.SERVICE_UNAVAILABLE, "not live\n");
            case "/readyz" -> readiness();
            default -> text(HttpResponseStatus.NOT_FOUND, "unknown path " + path + "; try /healthz, /readyz, /metrics"
                    + (routes != null ? " or /routes" : "") + "\n");
        };
    }

    private FullHttpResponse readiness() {
        Readiness readiness = health.readiness();
        return readiness.ready()
                ? text(HttpResponseStatus.OK, readiness.reason() + "\n")
                : text(HttpResponseStatus.SERVICE_UNAVAILABLE, "not ready: " + readiness.reason() + "\n");
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        return body(status, TEXT, body.getBytes(StandardCharsets.UTF_8));
    }

    private static FullHttpResponse body(HttpResponseStatus status, String contentType, byte[] bytes) {
        FullHttpResponse response = new DefaultFullHttpResponse(HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        return response;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("admin HTTP connection from {} failed; closing it", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
