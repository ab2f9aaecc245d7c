package io.leasehold.proxy;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxy's packages form layers whose imports point down only (the map is in docs/architecture.md):
 * frontend, backend and protocol know nothing of dispatch, the per-API rooms, the exchange or admin,
 * and the three rooms below the dispatcher (apis, access, presentation) never import one another.
 */
@AnalyzeClasses(packages = "io.leasehold.proxy", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageLayersTest {

    private static final String ROOT = "io.leasehold.proxy";

    /** Top to bottom; packages on one level are siblings and may not import each other either. */
    private static final List<List<String>> LEVELS = List.of(
            List.of(""),
            List.of("dispatch"),
            List.of("apis", "access", "presentation"),
            List.of("exchange"),
            List.of("versions", "owners"),
            List.of("admin"),
            List.of("security"),
            List.of("frontend"),
            List.of("tls"),
            List.of("audit"),
            List.of("authorization"),
            List.of("quotas"),
            List.of("request"),
            List.of("backend"),
            List.of("protocol", "transport"),
            List.of("logging"),
            List.of("files", "config"));

    @ArchTest
    static final ArchRule imports_point_down_the_layers_only = layers();

    @ArchTest
    static final ArchRule apis_access_and_presentation_never_import_each_other = CompositeArchRule
            .of(siblingsUnaware("apis", "access", "presentation"))
            .and(siblingsUnaware("access", "apis", "presentation"))
            .and(siblingsUnaware("presentation", "apis", "access"));

    private static LayeredArchitecture layers() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (List<String> level : LEVELS) {
            for (String name : level) {
                layers = layers.layer(layerName(name)).definedBy(packageOf(name));
            }
        }
        List<String> above = new ArrayList<>();
        for (List<String> level : LEVELS) {
            for (String name : level) {
                layers = above.isEmpty()
                        ? layers.whereLayer(layerName(name)).mayNotBeAccessedByAnyLayer()
                        : layers.whereLayer(layerName(name)).mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
            }
            level.forEach(name -> above.add(layerName(name)));
        }
        // Known up-arrow: frontend reports to admin's ProxyMetrics until the "limits" change gives frontend a
        // FrontendListener of its own that the metrics implement; then this allowance goes.
        return layers.ignoreDependency(resideInAPackage(packageOf("frontend")), resideInAPackage(packageOf("admin")));
    }

    private static ArchRule siblingsUnaware(String room, String... siblings) {
        String[] siblingPackages = List.of(siblings).stream().map(PackageLayersTest::packageOf).toArray(String[]::new);
        return noClasses().that().resideInAPackage(packageOf(room))
                .should().dependOnClassesThat().resideInAnyPackage(siblingPackages);
    }

    private static String layerName(String name) {
        return name.isEmpty() ? "root" : name;
    }

    private static String packageOf(String name) {
        return name.isEmpty() ? ROOT : ROOT + "." + name + "..";
    }
}
