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
import io.netty.handler.timeout.ReadTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

import static io.netty.handler.codec.http.HttpVersion.HTTP_1_1;

/** Answers the admin endpoints; stateless, so one instance serves every connection. */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON = "application/json";

    private final HealthProbe health;
    private final RoutingTable routes;
    private final PrometheusMeterRegistry registry;
    private final RoutesJson routesJson = new RoutesJson();

    AdminHttpHandler(HealthProbe health, RoutingTable routes, PrometheusMeterRegistry registry) {
        this.health = health;
        this.routes = routes;
        this.registry = registry;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        FullHttpResponse response = respond(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
        HttpUtil.setContentLength(response, response.content().readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        if (request.method().equals(HttpMethod.HEAD)) {
            response.content().clear();
        }
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private FullHttpResponse respond(FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            return text(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request\n");
        }
        if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
            FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET and HEAD\n");
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            return response;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        return switch (path) {
            case "/healthz" -> health.isLive()
                    ? text(HttpResponseStatus.OK, "live\n")
                    : text(HttpResponseStatus.SERVICE_UNAVAILABLE, "not live\n");
            case "/readyz" -> readiness();
            case "/metrics" -> body(HttpResponseStatus.OK, PROMETHEUS_TEXT,
                    registry.scrape().getBytes(StandardCharsets.UTF_8));
            case "/routes" -> body(HttpResponseStatus.OK, JSON, routesJson.render(routes));
            default -> text(HttpResponseStatus.NOT_FOUND,
                    "unknown path " + path + "; try /healthz, /readyz, /metrics or /routes\n");
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
        if (cause instanceof ReadTimeoutException) {
            ctx.close();
            return;
        }
        log.warn("admin HTTP connection from {} failed; closing it", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
